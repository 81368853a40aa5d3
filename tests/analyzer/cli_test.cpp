// End-to-end tests of the `parity` binary: real processes, real files.
#include <catch2/catch.hpp>

#include <fstream>

#include <nlohmann/json.hpp>

#include "parity/profiler/sqlite.hpp"
#include "process.hpp"
#include "refusal.hpp"
#include "temp_dir.hpp"
#include "trace_fixture.hpp"

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

ProcessResult parity_cli(std::vector<std::string> args) {
  args.insert(args.begin(), PARITY_CLI);
  return run_process(args);
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("parity info summarises a trace", "[e2e]") {
  TempDir dir;
  fixture::write_sample_trace(dir / "run.db");
  const auto text = parity_cli({"info", (dir / "run.db").string()});
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("schema version  1"));
  CHECK_THAT(text.out, Catch::Contains("command line    parity-train train --config r50.yaml"));
  CHECK_THAT(text.out, Catch::Contains("dropped records 0"));
  CHECK_THAT(text.out, Catch::Contains("GPU 0 stream 7"));

  const auto result = parity_cli({"info", "--json", (dir / "run.db").string()});
  REQUIRE(result.exit_code == 0);
  const json summary = json::parse(result.out);
  CHECK(summary["tables"]["range"] == fixture::kSteps * fixture::kRangesPerStep);
  CHECK(summary["tables"]["gpu_activity"] ==
        fixture::kSteps * (fixture::kKernelsPerStep + fixture::kMemcpyPerStep));
  CHECK(summary["tracks"].size() == 6);
  CHECK(summary["complete"] == true);
  CHECK(summary["dropped_records"] == 0);
  // From the loader's first instant (500 ns before step 0) to the end of the last step.
  CHECK(summary["time_span_ns"]["first"] == 1'000'000 - 500);
  CHECK(summary["time_span_ns"]["last"] == 1'000'000 + 2 * 10'000'000 + 9'000'000);
  for (const auto& track : summary["tracks"])
    if (track["name"] == "main") CHECK(track["rows"] > 0);
}

TEST_CASE("parity export writes Chrome trace JSON", "[e2e]") {
  TempDir dir;
  fixture::write_sample_trace(dir / "run.db");
  const auto output = dir / "run.trace.json";
  const auto result = parity_cli({"export", (dir / "run.db").string(), "--format", "chrome", "-o",
                                  output.string()});
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.err, Catch::Contains("flow arrows"));
  std::ifstream in(output);
  const json trace = json::parse(in);
  CHECK(trace["traceEvents"].size() > 50);
  CHECK_FALSE(fs::exists(dir / "run.trace.json.partial"));
}

TEST_CASE("parity --version and --help on every verb", "[e2e]") {
  const auto version = parity_cli({"--version"});
  CHECK(version.exit_code == 0);
  CHECK_THAT(version.out, Catch::StartsWith("parity 0."));
  for (const std::string verb : {"info", "export"}) {
    const auto help = parity_cli({verb, "--help"});
    INFO(verb);
    CHECK(help.exit_code == 0);
    CHECK_THAT(help.out, Catch::Contains("trace"));
  }
  for (const std::string verb : {"diff", "convert"}) {
    const auto help = parity_cli({verb, "--help"});
    INFO(verb);
    CHECK(help.exit_code == 0);
    CHECK_THAT(help.out, Catch::Contains("--map"));
  }
  const auto help = parity_cli({"--help"});
  CHECK(help.exit_code == 0);
  for (const std::string verb : {"info", "export", "diff", "convert"}) CHECK_THAT(help.out, Catch::Contains(verb));
}

TEST_CASE("bad usage exits with 2", "[e2e]") {
  check_refused(parity_cli({}), "A subcommand is required");
  check_refused(parity_cli({"frobnicate"}), "unknown command 'frobnicate'");
  check_refused(parity_cli({"info"}), "trace is required");
  TempDir dir;
  fixture::write_sample_trace(dir / "run.db");
  check_refused(parity_cli({"export", (dir / "run.db").string(), "--format", "svg"}), "svg");
}

TEST_CASE("bad trace files get one clear error and exit 2, for every verb", "[e2e]") {
  TempDir dir;
  fixture::write_sample_trace(dir / "good.db");

  write_file(dir / "notes.txt", "this is not a database, just some text\n");
  {
    parity::profiler::sql::Database empty(dir / "empty.db", parity::profiler::sql::Database::Mode::kCreate);
    empty.exec("CREATE TABLE unrelated(x)");
  }
  fs::copy_file(dir / "good.db", dir / "future.db");
  {
    parity::profiler::sql::Database db(dir / "future.db", parity::profiler::sql::Database::Mode::kCreate);
    db.exec("UPDATE meta SET value = '99' WHERE key = 'schema_version'");
  }
  fs::copy_file(dir / "good.db", dir / "partial.db");
  {
    parity::profiler::sql::Database db(dir / "partial.db", parity::profiler::sql::Database::Mode::kCreate);
    db.exec("DROP TABLE collective");
  }
  fs::copy_file(dir / "good.db", dir / "truncated.db");
  fs::resize_file(dir / "truncated.db", fs::file_size(dir / "good.db") / 2);
  fs::create_directory(dir / "folder.db");

  const std::vector<std::pair<std::string, std::string>> cases = {
      {"missing.db", "file not found"},
      {"notes.txt", "not SQLite"},
      {"empty.db", "no meta table"},
      {"future.db", "schema version 99"},
      {"partial.db", "missing table 'collective'"},
      {"truncated.db", "malformed"},
      {"folder.db", "directory"},
  };
  for (const auto& [file, message] : cases) {
    for (const std::string verb : {"info", "export"}) {
      INFO(verb << " " << file);
      std::vector<std::string> args = {verb, (dir / file).string()};
      if (verb == "export") args.insert(args.end(), {"-o", (dir / "out.json").string()});
      check_refused(parity_cli(args), message);
    }
  }
  CHECK_FALSE(fs::exists(dir / "out.json"));
}

TEST_CASE("export into a missing directory exits 2 and writes nothing", "[e2e]") {
  TempDir dir;
  fixture::write_sample_trace(dir / "run.db");
  check_refused(parity_cli({"export", (dir / "run.db").string(), "-o",
                            (dir / "no" / "such" / "out.json").string()}),
                "output directory does not exist");
}
