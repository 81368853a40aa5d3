// Golden files of every report-writing command of `parity` in every format it
// writes: report, diff-trace, diff, compare, nan-scan and tune-allreduce, run
// as real processes on small inputs made here from fixed numbers (the
// hand-made small trace, synthetic traces of fixed seeds, checkpoints and
// dumps of fixed values, a two-rank tuning run), each output compared byte
// for byte with golden/<command>.<extension>.golden (expected output is data,
// not source: the suffix keeps it out of tools that read code).
//
// After a deliberate change to a report, regenerate the files and review the
// difference:
//   PARITY_UPDATE_GOLDEN=1 build/tests/analyzer/golden/golden_tests
//   git diff tests/analyzer/golden/golden
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "dump_fixture.hpp"
#include "parity/analyzer/synth/synth.hpp"
#include "parity/importers/safetensors.hpp"
#include "process.hpp"
#include "small_trace.hpp"
#include "temp_dir.hpp"
#include "tune_fixture.hpp"

namespace fs = std::filesystem;
using parity::importers::NamedTensor;

namespace {

fixture::Plant scale(std::string phase, std::string name, std::string role, float factor) {
  return {std::move(phase), std::move(name), std::move(role), [factor](std::vector<float>& v) {
            for (float& x : v) x *= factor;
          }};
}

NamedTensor tensor(std::string name, std::vector<std::int64_t> shape, std::vector<float> values) {
  return NamedTensor::from_values<float>(std::move(name), std::move(shape), values);
}

// The inputs of each command, written into `dir`, as its arguments.

std::vector<std::string> report_inputs(const TempDir& dir) {
  small_trace::write(dir / "small.db");
  small_trace::write(dir / "small_baseline.db");
  return {(dir / "small.db").string(), "--baseline", (dir / "small_baseline.db").string()};
}

// B is A with its compute 25% slower: a regression, and op and kernel tables
// that differ.
std::vector<std::string> diff_trace_inputs(const TempDir& dir) {
  parity::analyzer::SynthOptions synth;
  synth.events = 20'000;
  parity::analyzer::write_synth_trace(synth, dir / "a.db");
  synth.straggler_rank = 0;
  parity::analyzer::write_synth_trace(synth, dir / "b.db");
  return {(dir / "a.db").string(), (dir / "b.db").string()};
}

// Equal, close, mismatching, shape-mismatching and one-sided tensors.
std::vector<std::string> diff_inputs(const TempDir& dir) {
  const std::vector<NamedTensor> a = {tensor("conv1.weight", {2, 2}, {1, 2, 3, 4}),
                                      tensor("bn1.bias", {3}, {0.5f, 0.25f, 1}),
                                      tensor("fc.weight", {2, 3}, {1, 2, 3, 4, 5, 6}),
                                      tensor("fc.bias", {2}, {1, 2}), tensor("extra.a", {1}, {7})};
  const std::vector<NamedTensor> b = {tensor("conv1.weight", {2, 2}, {1, 2, 3, 4}),
                                      tensor("bn1.bias", {3}, {0.5f, 0.25f, 1.0000001f}),
                                      tensor("fc.weight", {2, 3}, {1, 2, 3.5f, 4, 5, 6}),
                                      tensor("fc.bias", {3}, {1, 2, 3}),
                                      tensor("extra.b", {1}, {7})};
  parity::importers::write_safetensors(dir / "a.safetensors", a);
  parity::importers::write_safetensors(dir / "b.safetensors", b);
  return {(dir / "a.safetensors").string(), (dir / "b.safetensors").string()};
}

// One mismatch forward, one backward, a record only in A and one only in B.
std::vector<std::string> compare_inputs(const TempDir& dir) {
  fixture::DumpSpec a, b;
  a.plants = {scale("forward", "layer1.0.conv2", "output", 1.001f),
              scale("backward", "layer1.0.bn1", "grad_output", 0.999f)};
  a.records.erase(a.records.begin());
  b.records.pop_back();
  return {fixture::write_dump(dir / "a", a).string(), fixture::write_dump(dir / "b", b).string()};
}

std::vector<std::string> nan_scan_inputs(const TempDir& dir) {
  fixture::DumpSpec spec;
  spec.plants = {
      {"backward", "avgpool", "grad_output", [](std::vector<float>& v) { v[9] = std::nanf(""); }}};
  return {fixture::write_dump(dir / "dump", spec).string()};
}

std::vector<std::string> tune_inputs(const TempDir& dir) {
  tune_fixture::Run run;
  run.split_meta = "index:[1,3,5]";
  std::vector<std::string> args;
  for (const fs::path& path : tune_fixture::write_run(dir / "run", run))
    args.push_back(path.string());
  args.push_back("--simulate");
  return args;
}

void replace_all(std::string& text, const std::string& what, const std::string& with) {
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size()))
    text.replace(at, what.size(), with);
}

// What varies from run to run, replaced by fixed text:
// - the temporary directory the inputs live in (a new one each run) -> <tmp>;
// - wall-clock times of reading the inputs: text's "read 1.2 MB in 0.004 s
//   (0.30 GB/s)" -> "read 1.2 MB in <time>", JSON's "seconds": 0.004 ->
//   "seconds": 0, JUnit's time="0.004" -> time="0";
// - the tool's version in the profile report's JSON (it changes with every
//   release, not with the report) -> "".
std::string normalised(std::string text, const TempDir& dir) {
  replace_all(text, dir.path().string(), "<tmp>");
  text =
      std::regex_replace(text, std::regex(R"(( MB in )[0-9.]+ s( \([0-9.]+ GB/s\))?)"), "$1<time>");
  text = std::regex_replace(text, std::regex(R"("seconds": [-0-9.e+]+)"), "\"seconds\": 0");
  text = std::regex_replace(text, std::regex(R"(<testsuite (.*) time="[-0-9.e+]+">)"),
                            "<testsuite $1 time=\"0\">");
  return std::regex_replace(text, std::regex(R"("tool_version": "[^"]*")"),
                            "\"tool_version\": \"\"");
}

std::string extension(const std::string& format) {
  return format == "text" ? "txt" : format == "junit" ? "junit.xml" : format;
}

// Runs `parity <command> <args> --format <format>` and compares its stdout
// with golden/<command>.<extension>.golden, or writes it there under PARITY_UPDATE_GOLDEN.
void check_golden(const std::string& command, const TempDir& dir,
                  const std::vector<std::string>& args, const std::string& format) {
  std::vector<std::string> argv{PARITY_CLI, command};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--format", format});
  const ProcessResult result = run_process(argv);
  INFO(command << " --format " << format << ": " << result.err);
  REQUIRE((result.exit_code == 0 || result.exit_code == 1));
  const std::string produced = normalised(result.out, dir);

  const fs::path golden_path =
      fs::path(PARITY_COMMAND_GOLDEN_DIR) / (command + "." + extension(format) + ".golden");
  if (std::getenv("PARITY_UPDATE_GOLDEN"))
    std::ofstream(golden_path, std::ios::binary | std::ios::trunc) << produced;
  std::ifstream in(golden_path, std::ios::binary);
  REQUIRE(in);
  std::stringstream golden;
  golden << in.rdbuf();
  CHECK(produced == golden.str());
}

}  // namespace

TEST_CASE("golden: parity report in every format", "[e2e][golden]") {
  TempDir dir;
  const std::vector<std::string> args = report_inputs(dir);
  for (const std::string format : {"text", "md", "html", "json", "junit"})
    check_golden("report", dir, args, format);
}

TEST_CASE("golden: parity diff-trace in every format", "[e2e][golden]") {
  TempDir dir;
  const std::vector<std::string> args = diff_trace_inputs(dir);
  for (const std::string format : {"text", "md", "html", "json", "junit"})
    check_golden("diff-trace", dir, args, format);
}

TEST_CASE("golden: parity diff in every format", "[e2e][golden]") {
  TempDir dir;
  const std::vector<std::string> args = diff_inputs(dir);
  for (const std::string format : {"text", "md", "html", "json", "junit", "csv"})
    check_golden("diff", dir, args, format);
}

TEST_CASE("golden: parity compare in every format", "[e2e][golden]") {
  TempDir dir;
  const std::vector<std::string> args = compare_inputs(dir);
  for (const std::string format : {"text", "md", "html", "json", "junit", "csv"})
    check_golden("compare", dir, args, format);
}

TEST_CASE("golden: parity nan-scan in every format", "[e2e][golden]") {
  TempDir dir;
  const std::vector<std::string> args = nan_scan_inputs(dir);
  for (const std::string format : {"text", "md", "html", "json"})
    check_golden("nan-scan", dir, args, format);
}

TEST_CASE("golden: parity tune-allreduce in every format", "[e2e][golden]") {
  TempDir dir;
  const std::vector<std::string> args = tune_inputs(dir);
  for (const std::string format : {"text", "md", "html", "json"})
    check_golden("tune-allreduce", dir, args, format);
}
