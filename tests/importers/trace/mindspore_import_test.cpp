// `parity import`, `report` and `diff-trace` on MindSpore profiler folders
// written at test time by mindspore_profile.py (the documented formats; MindSpore
// is not installed here), the result read back through the profiler's typed
// readers and held against the generator's known times.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "process.hpp"
#include "refusal.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
namespace schema = parity::profiler::schema;
using parity::profiler::Category;
using parity::profiler::CollectiveOp;
using parity::profiler::CollectiveRow;
using parity::profiler::QueueSampleRow;
using parity::profiler::RangeRow;
using parity::profiler::StepRow;
using parity::profiler::TraceReader;

namespace {

// The generator's step, in us: data wait 200 (3000 with the queue empty),
// forward 460, backward 670, AllReduce 300 (rank 1: 320), ApplyMomentum 40.
constexpr std::int64_t kUs = 1000;
constexpr std::int64_t kForward = 460 * kUs, kBackward = 670 * kUs, kOptimizer = 40 * kUs;
constexpr std::int64_t kDataWait = 200 * kUs, kEmptyWait = 3000 * kUs;
std::int64_t allreduce(int rank) { return (300 + 20 * rank) * kUs; }

ProcessResult run(std::vector<std::string> args, const char* program = PARITY_CLI) {
  args.insert(args.begin(), program);
  return run_process(args);
}

fs::path make_profile(const TempDir& dir, const std::string& name,
                      std::vector<std::string> options = {}) {
  const fs::path out = dir / name;
  std::vector<std::string> argv{PARITY_MINDSPORE_PROFILE, out.string()};
  argv.insert(argv.end(), options.begin(), options.end());
  const ProcessResult made = run(argv, PARITY_PYTHON);
  INFO(made.err);
  REQUIRE(made.exit_code == 0);
  return out;
}

fs::path import_ok(const fs::path& in, const fs::path& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"import", in.string(), "-o", out.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  const ProcessResult result = run(args);
  INFO("stdout: " << result.out << "\nstderr: " << result.err);
  REQUIRE(result.exit_code == 0);
  return out;
}

std::vector<RangeRow> ranges_named(TraceReader& trace, const std::string& name) {
  std::vector<RangeRow> found;
  for (const RangeRow& row : schema::read_all<schema::kTable<RangeRow>>(trace.db(), "ORDER BY id"))
    if (trace.string(row.name) == name) found.push_back(row);
  return found;
}

void replace_in_file(const fs::path& path, const std::string& from, const std::string& to) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  text.replace(text.find(from), from.size(), to);
  std::ofstream(path, std::ios::trunc) << text;
}

}  // namespace

TEST_CASE("a MindSpore profiler folder gives steps, phases, ops and collectives", "[e2e]") {
  TempDir dir;
  const fs::path profile = make_profile(dir, "profiler");
  TraceReader trace(import_ok(profile, dir / "run.db"));
  CHECK(trace.meta_value("rank") == "0");
  CHECK(trace.meta_value("import.source_format") == "MindSpore profiler output");

  const auto steps = schema::read_all<schema::kTable<StepRow>>(trace.db(), "ORDER BY step");
  REQUIRE(steps.size() == 6);
  const std::int64_t first = kForward + kBackward + allreduce(0) + kOptimizer;
  CHECK(steps[0].start_ns == 0);  // step 1 starts at its fp_point, the earliest time
  CHECK(steps[0].end_ns == first);
  for (std::size_t i = 1; i < steps.size(); ++i) {
    CHECK(steps[i].start_ns == steps[i - 1].end_ns);
    CHECK(steps[i].end_ns - steps[i].start_ns == kDataWait + first);
  }
  // Step 2's phases: data wait, forward, backward (from BiasAddGrad), the tail.
  const std::int64_t s2 = steps[1].start_ns;
  const std::vector<std::pair<std::string, std::pair<std::int64_t, std::int64_t>>> phases = {
      {"data_wait", {s2, kDataWait}},
      {"forward", {s2 + kDataWait, kForward}},
      {"backward", {s2 + kDataWait + kForward, kBackward}},
      {"optimizer", {s2 + kDataWait + kForward + kBackward, allreduce(0) + kOptimizer}}};
  for (const auto& [name, span] : phases) {
    INFO(name);
    const auto rows = ranges_named(trace, name);
    REQUIRE(rows.size() == (name == "data_wait" ? 5u : 6u));  // step 1 waits for nothing
    const RangeRow& row = name == "data_wait" ? rows[0] : rows[1];
    CHECK(row.category == Category::kPhase);
    CHECK(row.start_ns == span.first);
    CHECK(row.dur_ns == span.second);
    CHECK(row.depth == 1);  // under its step
  }
  // Ops by type, the instance number as arg: Conv2D-op1 (120 us) and Conv2D-op5 (110 us).
  const auto convs = ranges_named(trace, "Conv2D");
  REQUIRE(convs.size() == 12);
  CHECK(convs[0].category == Category::kOp);
  CHECK(convs[0].start_ns == 0);
  CHECK(convs[0].dur_ns == 120 * kUs);
  CHECK(convs[0].arg == 1);
  CHECK(convs[1].dur_ns == 110 * kUs);
  CHECK(convs[1].arg == 5);
  CHECK(ranges_named(trace, "Conv2DBackpropFilter").size() == 12);

  const auto collectives =
      schema::read_all<schema::kTable<CollectiveRow>>(trace.db(), "ORDER BY start_ns");
  REQUIRE(collectives.size() == 6);
  for (std::size_t i = 0; i < collectives.size(); ++i) {
    CHECK(collectives[i].op == CollectiveOp::kAllReduce);
    CHECK(collectives[i].dur_ns == allreduce(0));
    CHECK(collectives[i].step == static_cast<std::int64_t>(i + 1));
    CHECK(collectives[i].start_ns == steps[i].end_ns - kOptimizer - allreduce(0));
  }
  // One sample per step's batch at the step's start: depth 8 of 64, no wait.
  const auto samples =
      schema::read_all<schema::kTable<QueueSampleRow>>(trace.db(), "ORDER BY ts_ns");
  REQUIRE(samples.size() == 6);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    CHECK(samples[i].ts_ns == steps[i].start_ns);
    CHECK(samples[i].depth == 8);
    CHECK(samples[i].capacity == 64);
    CHECK(samples[i].wait_ns == 0);
  }
  // op_statistic agrees with the timeline: kept in meta, no note of a difference.
  CHECK_THAT(trace.meta_value("import.op_statistic").value_or(""),
             Catch::Contains("Conv2D count=12"));
  CHECK_THAT(trace.meta_value("import.summary").value_or(""),
             !Catch::Contains("op_statistic counts differ"));
  CHECK_THAT(trace.meta_value("import.summary").value_or(""),
             Catch::Contains("1 queue records of batches with no step"));
}

TEST_CASE("an empty MindSpore data queue shows in parity report as data wait", "[e2e]") {
  TempDir dir;
  const fs::path profile = make_profile(dir, "profiler", {"--empty-from", "3"});
  TraceReader trace(import_ok(profile, dir / "run.db"));
  const auto samples =
      schema::read_all<schema::kTable<QueueSampleRow>>(trace.db(), "ORDER BY ts_ns");
  REQUIRE(samples.size() == 6);
  CHECK(samples[1].depth == 8);
  for (std::size_t i = 2; i < samples.size(); ++i) {
    CHECK(samples[i].depth == 0);
    CHECK(samples[i].wait_ns == kEmptyWait);
  }
  CHECK(ranges_named(trace, "data_wait")[2].dur_ns == kEmptyWait);

  const ProcessResult report = run({"report", profile.string()});
  INFO(report.out << report.err);
  CHECK(report.exit_code == 1);  // an error-level finding
  CHECK_THAT(report.out, Catch::Contains("data-bound"));
  CHECK_THAT(report.out, Catch::Contains("queue 'device_queue' empty on 80.0% of gets"));
  CHECK(fs::exists(dir / "profiler.parity.db"));  // the cache, beside the folder
}

TEST_CASE("parity import reads the rank asked for, and rank subfolders", "[e2e]") {
  TempDir dir;
  const fs::path flat = make_profile(dir, "flat");
  TraceReader rank1(import_ok(flat, dir / "rank1.db", {"--rank", "1"}));
  CHECK(rank1.meta_value("rank") == "1");
  const auto collectives = schema::read_all<schema::kTable<CollectiveRow>>(rank1.db(), "");
  REQUIRE_FALSE(collectives.empty());
  CHECK(collectives[0].dur_ns == allreduce(1));
  CHECK(collectives[0].rank == 1);

  const fs::path folders = make_profile(dir, "folders", {"--rank-folders"});
  const ProcessResult lowest = run({"import", folders.string(), "-o", (dir / "r0.db").string()});
  CHECK(lowest.exit_code == 0);
  CHECK_THAT(lowest.out, Catch::Contains("only rank 0 (the lowest) of ranks 0, 1 is read"));
  check_refused(run({"import", folders.string(), "--rank", "7", "-o", (dir / "x.db").string()}),
                "no profiler files of rank 7");
}

TEST_CASE("a MindSpore timeline JSON alone gives steps, ops and collectives", "[e2e]") {
  TempDir dir;
  const fs::path profile = make_profile(dir, "profiler");
  TraceReader trace(import_ok(profile / "ascend_timeline_display_0.json", dir / "run.db"));
  CHECK(trace.meta_value("import.source_kind") == "MindSpore profiler timeline");
  CHECK(schema::read_all<schema::kTable<StepRow>>(trace.db(), "").size() == 6);
  CHECK(ranges_named(trace, "Conv2D").size() == 12);
  CHECK(schema::read_all<schema::kTable<CollectiveRow>>(trace.db(), "").size() == 6);
}

TEST_CASE("parity diff-trace compares two MindSpore profiler folders", "[e2e]") {
  TempDir dir;
  const fs::path a = make_profile(dir, "a"), b = make_profile(dir, "b", {"--empty-from", "2"});
  const ProcessResult diff = run({"diff-trace", a.string(), b.string()});
  INFO(diff.out << diff.err);
  CHECK(diff.exit_code != 2);
  CHECK_THAT(diff.out, Catch::Contains("data_wait"));
}

TEST_CASE("bad MindSpore profiler files are refused naming the file and where", "[e2e]") {
  TempDir dir;
  const fs::path profile = make_profile(dir, "profiler", {"--ranks", "1"});
  const fs::path steps = profile / "step_trace_raw_0_detail_time.csv";
  const fs::path out = dir / "run.db";
  SECTION("a missing step trace") {
    fs::remove(steps);
    check_refused(run({"import", profile.string(), "-o", out.string()}),
                  "no step trace (step_trace_raw_0_detail_time.csv) for rank 0");
  }
  SECTION("a row cut short") {
    std::ifstream in(steps);
    std::string header, row1, row2;
    std::getline(in, header), std::getline(in, row1), std::getline(in, row2);
    in.close();
    std::ofstream(steps, std::ios::trunc) << header << '\n'
                                          << row1 << '\n'
                                          << row2.substr(0, row2.size() / 2);
    check_refused(run({"import", profile.string(), "-o", out.string()}),
                  steps.string() + ", line 3");
  }
  SECTION("a header of another kind") {
    replace_in_file(steps, "fp_point", "forward_start");
    check_refused(run({"import", profile.string(), "-o", out.string()}),
                  "the header has no column \"fp_point\"");
  }
  SECTION("a truncated timeline") {
    const fs::path timeline = profile / "ascend_timeline_display_0.json";
    fs::resize_file(timeline, fs::file_size(timeline) / 2);
    const ProcessResult result = run({"import", profile.string(), "-o", out.string()});
    check_refused(result, timeline.string());
    CHECK_THAT(result.err, Catch::Contains("byte"));
  }
  SECTION("a queue record cut short") {
    std::ofstream(profile / "device_queue_profiling_0.txt", std::ios::app) << "1 64\n";
    check_refused(run({"import", profile.string(), "-o", out.string()}),
                  "device_queue_profiling_0.txt, line 29");
  }
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("a MindSpore folder's cache is reused until one of its files changes", "[e2e]") {
  TempDir dir;
  const fs::path profile = make_profile(dir, "profiler", {"--ranks", "1"});
  const fs::path cache = dir / "profiler.parity.db";
  REQUIRE(run({"info", profile.string()}).exit_code == 0);
  REQUIRE(fs::exists(cache));
  const auto first = fs::last_write_time(cache);
  REQUIRE(run({"info", profile.string()}).exit_code == 0);
  CHECK(fs::last_write_time(cache) == first);  // reused
  // One more batch in the queue trace: a new size, so the cache is made again.
  std::ofstream(profile / "device_queue_profiling_0.txt", std::ios::app) << "1 64 9 8 600000\n";
  REQUIRE(run({"info", profile.string()}).exit_code == 0);
  CHECK(fs::last_write_time(cache) != first);
  TraceReader trace(cache);
  CHECK_THAT(trace.meta_value("import.summary").value_or(""),
             Catch::Contains("2 queue records of batches with no step"));
}
