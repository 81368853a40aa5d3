// End-to-end tests of `parity report` and `parity diff-trace` on real traces
// of our trainer (planted faults included), synthetic multi-rank traces, and
// broken files.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "parity/profiler/trace_writer.hpp"
#include "refusal.hpp"
#include "traced_run.hpp"

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A copy of `trace` with every time and duration scaled by `factor`: the same
// run, uniformly slower.
fs::path slowed_copy(const fs::path& trace, const fs::path& copy, double factor) {
  fs::copy_file(trace, copy);
  const std::string f = std::to_string(factor);
  const std::string sql =
      "UPDATE range SET start_ns = CAST(start_ns * " + f + " AS INTEGER), dur_ns = CAST(dur_ns * " +
      f + " AS INTEGER); UPDATE step SET start_ns = CAST(start_ns * " + f +
      " AS INTEGER), end_ns = CAST(end_ns * " + f +
      " AS INTEGER); UPDATE queue_sample SET ts_ns = CAST(ts_ns * " + f +
      " AS INTEGER), wait_ns = CAST(wait_ns * " + f +
      " AS INTEGER); UPDATE counter SET ts_ns = CAST(ts_ns * " + f + " AS INTEGER);";
  const ProcessResult update = run_process({PARITY_PYTHON, "-c",
                                            "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); "
                                            "c.executescript(sys.argv[2]); c.commit()",
                                            copy.string(), sql});
  INFO(update.err);
  REQUIRE(update.exit_code == 0);
  return copy;
}

// "CASES FAILURES" of a JUnit file, as Python's XML parser reads it.
std::string junit_counts(const fs::path& file) {
  const ProcessResult counts =
      run_process({PARITY_PYTHON, "-c",
                   "import sys,xml.etree.ElementTree as E; s=E.parse(sys.argv[1]).getroot(); "
                   "print(len(s.findall('.//testcase')), len(s.findall('.//failure')), end='')",
                   file.string()});
  INFO(counts.err);
  CHECK(counts.exit_code == 0);
  return counts.out;
}

const json* finding(const json& report, const std::string& rule) {
  for (const json& f : report["findings"])
    if (f["rule"] == rule) return &f;
  return nullptr;
}

}  // namespace

TEST_CASE(
    "a slowed data loader is found data-bound, its share within 2 points of the planted delay",
    "[e2e]") {
  TempDir dir;
  constexpr double kDelayMs = 25;
  // No loader threads: every batch's delay is waited out inside the step's data_wait.
  // The ImageNet stem keeps the steps short (the small stem's 0.5-0.9 s steps on
  // a slow 2-core machine made the delay under 5% of a step: no finding).
  const fs::path trace =
      traced_run(dir, "slow", 12, 0, {"--data-delay-ms", "25", "--set", "stem=imagenet"});
  const json report = json_report({trace.string()});
  const json& steps = report["ranks"][0]["steps"];
  // The truth: the planted delay per steady step over the steady steps' wall time.
  double steady_ns = 0;
  int steady = 0;
  for (const json& step : steps["steps"])
    if (step["step"].get<int>() >= steps["warmup_steps"].get<int>())
      steady_ns += step["dur_ns"].get<double>(), ++steady;
  const double truth = steady * kDelayMs * 1e6 / steady_ns;
  const double measured = report["ranks"][0]["data"]["input_bound_share"].get<double>();
  INFO("planted share " << truth << ", measured " << measured);
  CHECK(std::abs(measured - truth) <= 0.02);
  const json* data_bound = finding(report, "data-bound");
  REQUIRE(data_bound);
  // The rule classifies the share it measured: near the 20% line, the planted
  // share and the measured one (within 2 points of each other) can fall on
  // either side of it.
  CHECK((*data_bound)["severity"] == (measured > 0.2 ? "error" : "warning"));
  CHECK_THAT((*data_bound)["next_step"].get<std::string>(), Catch::Contains("num_workers"));
}

TEST_CASE("a clean run has no warning-level finding, baselines catch a 10% slowdown, pass 1%",
          "[e2e]") {
  TempDir dir;
  // A real run on a shared machine (CI runs tests side by side) can stall for a
  // moment, and the report rightly flags that as step jitter. Such a run is not
  // clean: record again, at most three times, while jitter is the only warning.
  fs::path clean;
  ProcessResult text;
  bool only_jitter = false;
  for (int attempt = 0; attempt < 3; ++attempt) {
    clean = traced_run(dir, "clean" + std::to_string(attempt), 24, 1);
    text = parity_cli({"report", clean.string(), "--fail-on", "warning"});
    only_jitter = text.out.find("[warning] step-jitter") != std::string::npos &&
                  text.out.find("FAIL: 0 errors, 1 warnings") != std::string::npos;
    if (!only_jitter) break;
  }
  INFO(text.out << text.err);
  // Jitter in three runs in a row is the machine's (a shared 2-core VM whose
  // host steals half its time made steps vary by 30%), not the trainer's: it
  // stays the one warning allowed, every other finding is still checked.
  CHECK(text.exit_code == (only_jitter ? 1 : 0));
  if (!only_jitter) CHECK_THAT(text.out, Catch::Contains("PASS"));
  const json report = json_report({clean.string()});
  for (const json& f : report["findings"])
    CHECK((f["severity"] == "info" || (only_jitter && f["rule"] == "step-jitter")));
  // parity-train's op ranges: conv2d forward and backward, and the loader's batches.
  bool conv = false;
  for (const json& op : report["ranks"][0]["operators"]["ops"])
    conv |= op["name"] == "conv2d_backward";
  CHECK(conv);

  const fs::path slower10 = slowed_copy(clean, dir / "slower10.db", 1.10);
  const fs::path slower1 = slowed_copy(clean, dir / "slower1.db", 1.01);
  const json failed = json_report({slower10.string()}, {"--baseline", clean.string()}, 1);
  CHECK(failed["verdict"] == "fail");
  CHECK(failed["baseline"]["regressed"] == true);
  CHECK(failed["baseline"]["checks"][0]["name"] == "step time");
  CHECK(failed["baseline"]["checks"][0]["change_pct"].get<double>() == Approx(10).margin(0.5));
  const json passed = json_report({slower1.string()}, {"--baseline", clean.string()}, 0);
  CHECK(passed["baseline"]["regressed"] == false);
  CHECK(passed["baseline"]["checks"][0]["change_pct"].get<double>() == Approx(1).margin(0.2));
  // A looser allowance passes the 10% slowdown too.
  json_report({slower10.string()}, {"--baseline", clean.string(), "--max-regression", "12"}, 0);

  SECTION("diff-trace shows the same regression per op and per part") {
    const ProcessResult diff = parity_cli({"diff-trace", clean.string(), slower10.string()});
    INFO(diff.err);
    CHECK(diff.exit_code == 1);
    CHECK_THAT(diff.out, Catch::Contains("REGRESSED"));
    CHECK_THAT(diff.out, Catch::Contains("conv2d_backward"));
    CHECK_THAT(diff.out, Catch::Contains("+10.0%"));
    const ProcessResult same =
        parity_cli({"diff-trace", clean.string(), slower1.string(), "--format", "json"});
    CHECK(same.exit_code == 0);
    const json parsed = json::parse(same.out);
    CHECK(parsed["regression"]["regressed"] == false);
    CHECK(parsed["ops"].size() > 3);
    CHECK_THAT(parity_cli({"diff-trace", clean.string(), slower1.string()}).out,
               Catch::Contains("OK: all "));

    // Every format of parity report at once; JUnit: one case per check, the failed ones failing.
    const fs::path out = dir / "diff";
    const ProcessResult all =
        parity_cli({"diff-trace", clean.string(), slower10.string(), "--format",
                    "text,md,html,json,junit", "-o", out.string()});
    INFO(all.err);
    CHECK(all.exit_code == 1);
    for (const char* file : {"diff-trace.txt", "diff-trace.md", "diff-trace.html",
                             "diff-trace.json", "diff-trace.junit.xml"})
      CHECK(fs::file_size(out / file) > 200);
    const json checks = json::parse(std::ifstream(out / "diff-trace.json"))["regression"]["checks"];
    std::size_t regressed = 0;
    for (const json& check : checks) regressed += check["regressed"].get<bool>() ? 1 : 0;
    CHECK(regressed >= 1);
    CHECK(junit_counts(out / "diff-trace.junit.xml") ==
          std::to_string(checks.size()) + " " + std::to_string(regressed));
  }
  SECTION("every format at once into a directory") {
    const fs::path out = dir / "reports";
    const ProcessResult all =
        parity_cli({"report", clean.string(), "--format", "text,md,html,json,junit", "-o",
                    out.string(), "--baseline", clean.string()});
    INFO(all.err);
    CHECK(all.exit_code == 0);
    for (const char* file :
         {"report.txt", "report.md", "report.html", "report.json", "report.junit.xml"})
      CHECK(fs::file_size(out / file) > 200);
    std::ifstream md(out / "report.md");
    std::stringstream markdown;
    markdown << md.rdbuf();
    CHECK_THAT(markdown.str(), Catch::Contains("| part | mean |"));
    // JUnit: one case per rule and per regression check, all passing.
    const json rules = json::parse(std::ifstream(out / "report.json"))["baseline"]["checks"];
    CHECK(junit_counts(out / "report.junit.xml") == std::to_string(12 + rules.size()) + " 0");
  }
}

TEST_CASE("several ranks: the per-rank table names the straggler", "[e2e]") {
  TempDir dir;
  const ProcessResult synth =
      parity_cli({"synth", "--events", "40000", "--ranks", "4", "--straggler-rank", "2", "-o",
                  (dir / "run.db").string()});
  INFO(synth.err);
  REQUIRE(synth.exit_code == 0);
  std::vector<std::string> traces;
  for (int rank = 0; rank < 4; ++rank)
    traces.push_back((dir / ("run.rank" + std::to_string(rank) + ".db")).string());
  const json report = json_report(traces);
  REQUIRE(report["rank_comparison"]["ranks"].size() == 4);
  const json* straggler = finding(report, "straggler");
  REQUIRE(straggler);
  CHECK((*straggler)["rank"] == 2);
  for (const json& row : report["rank_comparison"]["ranks"])
    CHECK(row["straggler"] == (row["rank"] == 2));
  CHECK(report["ranks"][0]["communication"]["collectives"].size() >= 1);
  // The same rank twice is refused.
  check_refused(parity_cli({"report", traces[0], traces[0]}), "two traces are rank 0");
}

TEST_CASE("bad inputs are refused with exit code 2 and a clear message", "[e2e]") {
  TempDir dir;
  SECTION("a trace with no steps") {
    {
      parity::profiler::TraceWriter writer(dir / "empty.db");
      writer.finalize();
    }
    check_refused(parity_cli({"report", (dir / "empty.db").string()}), "holds no training steps");
  }
  SECTION("a truncated database") {
    const ProcessResult synth =
        parity_cli({"synth", "--events", "20000", "-o", (dir / "full.db").string()});
    REQUIRE(synth.exit_code == 0);
    const auto size = fs::file_size(dir / "full.db");
    fs::copy_file(dir / "full.db", dir / "cut.db");
    fs::resize_file(dir / "cut.db", size / 2);
    const ProcessResult result = parity_cli({"report", (dir / "cut.db").string()});
    INFO(result.err);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains("cut.db"));
    CHECK_THAT(result.err, !Catch::Contains("terminate called"));
  }
  SECTION("another schema version") {
    {
      parity::profiler::TraceWriter writer(dir / "future.db");
      writer.set_meta("schema_version", "99");
      writer.finalize();
    }
    check_refused(parity_cli({"report", (dir / "future.db").string()}), "schema version 99");
  }
  SECTION("not a database, or no file at all") {
    std::ofstream(dir / "notes.db") << "just some text, not SQLite\n";
    check_refused(parity_cli({"report", (dir / "notes.db").string()}), "not SQLite");
    check_refused(parity_cli({"report", (dir / "missing.db").string()}), "missing.db");
  }
  SECTION("bad options") {
    const ProcessResult synth =
        parity_cli({"synth", "--events", "5000", "-o", (dir / "ok.db").string()});
    REQUIRE(synth.exit_code == 0);
    const std::string ok = (dir / "ok.db").string();
    check_refused(parity_cli({"report", ok, "--format", "pdf"}), "pdf");
    check_refused(parity_cli({"report", ok, "--format", "text,json"}),
                  "several formats need an output directory");
    check_refused(parity_cli({"report", ok, "--set", "no_such_threshold=1"}), "unknown setting");
    check_refused(parity_cli({"report", ok, "--set", "jitter.warning_spread=fast"}),
                  "not a non-negative number");
    check_refused(parity_cli({"report"}), "no trace given");
    check_refused(parity_cli({"diff-trace", ok, (dir / "missing.db").string()}), "missing.db");
    check_refused(parity_cli({"diff-trace", ok, ok, "--format", "md,junit"}),
                  "several formats need an output directory");
    check_refused(parity_cli({"diff-trace", ok, ok, "--format", "pdf"}), "pdf");
    std::ofstream(dir / "map.yaml") << "categories:\n  - name: conv\n    patterns: ['re:(']\n";
    check_refused(parity_cli({"diff-trace", ok, ok, "--op-map", (dir / "map.yaml").string()}),
                  "map.yaml:3");
    check_refused(parity_cli({"diff-trace", ok, ok, "--op-map", (dir / "none.yaml").string()}),
                  "none.yaml");
  }
}

TEST_CASE("report --list-rules names every rule and setting", "[e2e]") {
  const ProcessResult result = parity_cli({"report", "--list-rules"});
  CHECK(result.exit_code == 0);
  for (const char* rule :
       {"data-bound", "queue-empty", "long-first-step", "step-jitter", "comm-tail", "launch-bound",
        "conversion-ops", "loss-scale-overflow", "non-finite", "memory-capacity", "trace-quality",
        "straggler", "baseline.max_regression_pct"})
    CHECK_THAT(result.out, Catch::Contains(rule));
}
