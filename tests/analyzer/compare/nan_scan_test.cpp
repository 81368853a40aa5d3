// scan_dump and its report: the first record holding NaN or Inf, found from
// the manifest's statistics (checked against the array), from the arrays of
// a plain .npy directory, or from statistics alone.
#include "parity/analyzer/compare/nan_scan.hpp"

#include <catch2/catch.hpp>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dump_fixture.hpp"
#include "expect_error.hpp"
#include "parity/analyzer/compare/nan_scan_report.hpp"
#include "temp_dir.hpp"

using namespace parity;
using namespace parity::analyzer;
using importers::TensorDump;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

fixture::Plant set(std::string phase, std::string name, std::string role,
                   std::vector<std::size_t> elements, float value) {
  return {std::move(phase), std::move(name), std::move(role),
          [elements, value](std::vector<float>& v) {
            for (const std::size_t k : elements) v[k] = value;
          }};
}

std::string text_report(const NanScan& scan) {
  std::ostringstream out;
  write_nan_scan_report(scan, "text", out);
  return out.str();
}

}  // namespace

TEST_CASE("nan-scan: finds the first NaN and names the clean record before it",
          "[unit][nan-scan]") {
  TempDir dir;
  fixture::DumpSpec spec;
  // NaN appears in layer1.0.bn1 (after a clean layer1.0.conv1) and spreads.
  spec.plants = {set("forward", "layer1.0.bn1", "output", {37, 40, 200}, kNaN),
                 set("forward", "layer1.0.bn1", "output", {41}, kInf),
                 set("forward", "layer1.0.conv2", "output", {0}, kNaN),
                 set("backward", "fc", "grad_output", {1}, -kInf)};
  const TensorDump dump = TensorDump::open(fixture::write_dump(dir / "d", spec));
  std::vector<std::size_t> calls;
  const NanScan scan =
      scan_dump(dump, [&calls](std::size_t done, std::size_t) { calls.push_back(done); });
  REQUIRE(scan.found());
  CHECK(scan.first->describe() == "step 0 forward layer1.0.bn1 (output)");
  CHECK(scan.first->op == "batch_norm_relu");
  CHECK(scan.counts.nan == 3);
  CHECK(scan.counts.inf == 1);
  CHECK(scan.counts.first_element == 37);
  REQUIRE(scan.before);
  CHECK(scan.before->describe() == "step 0 forward layer1.0.conv1 (output)");
  CHECK(scan.later_nonfinite == 2);
  CHECK(scan.later_records == dump.records().size() - 6);
  CHECK(scan.arrays_read == 1);  // the statistics are trusted, the first record located
  CHECK(calls.size() == dump.records().size());

  const std::string text = text_report(scan);
  const std::string title =
      "first NaN/Inf: step 0 forward layer1.0.bn1 (output): 3 NaN, 1 Inf, first at [0, 2, 1, 1]";
  CHECK_THAT(text, Catch::StartsWith(
                       title + "\n" + std::string(title.size(), '=') +
                       "\n"
                       "  record: step 0, phase forward, module layer1.0.bn1, op batch_norm_relu, "
                       "role output, float32 [2, 8, 4, 4]\n"
                       "  culprit: batch_norm_relu in layer1.0.bn1: its output holds NaN/Inf while "
                       "its input side was clean (step 0 forward layer1.0.conv1 (output), executed "
                       "just before it, holds none)\n"
                       "  later: 2 of 31 later records hold NaN or Inf\n"));

  std::ostringstream json_text;
  write_nan_scan_report(scan, "json", json_text);
  const auto json = nlohmann::json::parse(json_text.str());
  CHECK(json["found"] == true);
  CHECK(json["first"]["module"] == "layer1.0.bn1");
  CHECK(json["first"]["first_index"] == nlohmann::json::array({0, 2, 1, 1}));
  CHECK(json["culprit"]["op"] == "batch_norm_relu");
  CHECK(json["clean_before"]["name"] == "layer1.0.conv1");
  CHECK(json["later_nonfinite"] == 2);
}

TEST_CASE("nan-scan: a clean dump, the very first record, a stats-only dump", "[unit][nan-scan]") {
  TempDir dir;
  const NanScan clean = scan_dump(TensorDump::open(fixture::write_dump(dir / "clean", {})));
  CHECK_FALSE(clean.found());
  CHECK(clean.arrays_read == 0);
  CHECK_THAT(text_report(clean), Catch::StartsWith("no NaN or Inf: scanned 37 records of "));

  fixture::DumpSpec first;
  first.plants = {set("forward", "input", "input", {5}, kInf)};
  const NanScan at_input = scan_dump(TensorDump::open(fixture::write_dump(dir / "input", first)));
  CHECK(at_input.first->name == "input");
  CHECK_FALSE(at_input.before);
  CHECK_THAT(text_report(at_input),
             Catch::Contains("nothing ran before it (the first record of the dump)"));

  fixture::DumpSpec stats_only;
  stats_only.stats_only = true;
  stats_only.plants = {set("backward", "layer1.0.bn2", "grad_output", {3}, kNaN)};
  const NanScan from_stats =
      scan_dump(TensorDump::open(fixture::write_dump(dir / "stats", stats_only)));
  CHECK(from_stats.first->describe() == "step 0 backward layer1.0.bn2 (grad_output)");
  CHECK(from_stats.counts.nan == 1);
  CHECK_FALSE(from_stats.counts.first_element);
  CHECK(from_stats.before->describe() == "step 0 backward layer1.0 (grad_output)");
  CHECK(from_stats.arrays_read == 0);
  CHECK_THAT(text_report(from_stats),
             Catch::Contains("first at unknown (the dump holds statistics only)"));
}

TEST_CASE("nan-scan: reads every array of a plain .npy directory", "[unit][nan-scan]") {
  TempDir dir;
  fixture::run_numpy(R"(
d = sys.argv[1]
a = np.ones((4, 5), np.float32)
np.save(os.path.join(d, "1_conv.npy"), a)
b = a.copy(); b[2, 3] = np.inf
np.save(os.path.join(d, "2_relu.npy"), b)
c = b.astype(np.float64); c[0, 0] = np.nan
np.save(os.path.join(d, "10_fc.npy"), c)
)",
                     dir.path());
  const NanScan scan = scan_dump(TensorDump::open(dir.path()));
  CHECK(scan.arrays_read == 3);
  CHECK(scan.first->name == "2_relu");
  CHECK(scan.counts.inf == 1);
  CHECK(scan.counts.first_element == 13);
  CHECK(scan.before->name == "1_conv");
  CHECK(scan.later_nonfinite == 1);
  CHECK_THAT(text_report(scan),
             Catch::Contains("culprit: 2_relu: its output holds NaN/Inf while its input side "
                             "was clean (1_conv, executed just before it, holds none)"));
}

TEST_CASE("nan-scan: refuses statistics that disagree with the array", "[unit][nan-scan]") {
  TempDir dir;
  fixture::DumpSpec spec;
  spec.plants = {set("forward", "bn1", "output", {2}, kNaN)};
  const auto path = fixture::write_dump(dir / "d", spec);
  // bn1 is record 2, manifest line 4; its statistics now claim two NaN.
  nlohmann::json line = nlohmann::json::parse(fixture::manifest_line(path, 4));
  line["stats"]["nan"] = 2;
  fixture::replace_manifest_line(path, 4, line.dump());
  parity::test::expect_error(
      [&] { scan_dump(TensorDump::open(path)); },
      "the manifest's statistics say 2 NaN and 0 Inf, the array holds 1 NaN and 0 Inf",
      path / line["file"].get<std::string>());
}
