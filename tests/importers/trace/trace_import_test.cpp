// `parity import` and the commands that read Chrome trace JSON directly, run
// as the real binary on small hand-written traces, the result read back
// through the profiler's TraceReader and typed readers.
#include <zlib.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
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
using parity::profiler::ApiCallRow;
using parity::profiler::Category;
using parity::profiler::CounterRow;
using parity::profiler::GpuActivityKind;
using parity::profiler::LaunchConfigRow;
using parity::profiler::RangeRow;
using parity::profiler::StepRow;
using parity::profiler::StoredGpuActivityRow;
using parity::profiler::TraceReader;
using parity::profiler::TrackId;
using parity::profiler::TrackKind;

namespace {

ProcessResult parity_cli(std::vector<std::string> args) {
  args.insert(args.begin(), PARITY_CLI);
  return run_process(args);
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// A Kineto-style trace: two profiler steps with nested ops on the main thread
// (written out of time order), another thread, a 'B'/'E' pair, a kernel and
// its launch, memory samples, and events of kinds Parity does not read.
const std::string kTrace = R"j({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "H100"}],
  "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 130, "dur": 10},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#5", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 120, "dur": 40},
    {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 170, "dur": 20},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#6", "pid": 1, "tid": 1, "ts": 200, "dur": 50},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 110, "dur": 5},
    {"ph": "B", "name": "forward", "pid": 1, "tid": 3, "ts": 300},
    {"ph": "E", "pid": 1, "tid": 3, "ts": 340.5},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 125, "dur": 3, "args": {"External id": 1, "correlation": 42}},
    {"ph": "X", "cat": "kernel", "name": "void k()",
                  "pid" : 0, "tid" : 7, "ts" : 135, "dur" : 4.5, "args" : {
  "External id" : 1, "device" : 0, "stream" : 7, "correlation" : 42, "registers per thread" : 20,
      "shared memory" : 0, "grid" : [ 110, 1, 1 ], "block" : [ 128, 1, 1 ]
}
},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 121, "args": {"Total Allocated": 4096, "Device Type": 1, "Device Id": 0}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 131, "args": {"Total Allocated": 8192, "Device Type": 1, "Device Id": 0}},
    {"ph": "s", "id": 42, "pid": 1, "tid": 1, "ts": 125, "cat": "ac2g", "name": "ac2g"},
    {"ph": "b", "id": 1, "pid": 1, "tid": 1, "ts": 150, "cat": "async", "name": "io"},
    {"ph": "b", "id": 2, "pid": 1, "tid": 1, "ts": 151, "cat": "async", "name": "io"},
    {"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "python"}},
    {"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "main"}},
    {"name": "thread_name", "ph": "M", "pid": 0, "tid": 7, "args": {"name": "stream 7 "}}
  ],
  "traceName": "x.json"
}
)j";

std::string track_name(const TraceReader& trace, TrackId id) {
  const auto* track = trace.track(id);
  return track ? trace.string(track->name) : "?";
}

// The id of the track named `name`; fails the test if there is none.
TrackId track_named(const TraceReader& trace, const std::string& name) {
  for (const auto& track : trace.tracks())
    if (trace.string(track.name) == name) return track.id;
  FAIL("no track named " << name);
  return 0;
}

struct Imported {
  TempDir dir;
  ProcessResult result;
  fs::path db;
};

void import_text(Imported& imported, const std::string& text, const std::string& name) {
  const fs::path in = imported.dir / name;
  write_file(in, text);
  imported.db = imported.dir / "run.db";
  imported.result = parity_cli({"import", in.string(), "-o", imported.db.string()});
  INFO("stdout: " << imported.result.out << "\nstderr: " << imported.result.err);
  REQUIRE(imported.result.exit_code == 0);
}

}  // namespace

TEST_CASE("parity import nests ranges as their times say, ids in begin order", "[e2e]") {
  Imported imported;
  import_text(imported, kTrace, "trace.json");
  TraceReader trace(imported.db);
  const auto ranges = schema::read_all<schema::kTable<RangeRow>>(trace.db(), "ORDER BY id");
  REQUIRE(ranges.size() == 7);
  struct Expected {
    std::string name;
    std::int64_t start_ns, dur_ns;
    std::uint32_t depth;
    std::optional<std::int64_t> parent;
    Category category;
  };
  // Times from the earliest event (ts 100 us).
  const std::vector<Expected> expected = {
      {"ProfilerStep#5", 0, 100'000, 0, std::nullopt, Category::kStep},
      {"aten::mm", 10'000, 5'000, 0, std::nullopt, Category::kOp},
      {"aten::linear", 20'000, 40'000, 1, 1, Category::kOp},
      {"aten::add", 30'000, 10'000, 2, 3, Category::kOp},
      {"aten::relu", 70'000, 20'000, 1, 1, Category::kOp},
      {"ProfilerStep#6", 100'000, 50'000, 0, std::nullopt, Category::kStep},
      {"forward", 200'000, 40'500, 0, std::nullopt, Category::kUser},
  };
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("range " << i + 1 << ": " << expected[i].name);
    const RangeRow& range = ranges[i];
    CHECK(range.id == static_cast<std::int64_t>(i + 1));
    CHECK(trace.string(range.name) == expected[i].name);
    CHECK(range.start_ns == expected[i].start_ns);
    CHECK(range.dur_ns == expected[i].dur_ns);
    CHECK(range.depth == expected[i].depth);
    CHECK(range.parent_id == expected[i].parent);
    CHECK(range.category == expected[i].category);
  }
  // Begin order: ids grow with start times.
  for (std::size_t i = 1; i < ranges.size(); ++i)
    CHECK(ranges[i - 1].start_ns <= ranges[i].start_ns);
  CHECK(ranges[0].arg == 5);
  CHECK(ranges[5].arg == 6);

  const TrackId main = track_named(trace, "python / main");
  CHECK(ranges[0].track == main);
  CHECK(ranges[2].track == main);
  CHECK(track_name(trace, ranges[1].track) == "python / thread 2");
  CHECK(track_name(trace, ranges[6].track) == "python / thread 3");
}

TEST_CASE("parity import makes ProfilerStep#N ranges steps N", "[e2e]") {
  Imported imported;
  import_text(imported, kTrace, "trace.json");
  TraceReader trace(imported.db);
  const auto steps = schema::read_all<schema::kTable<StepRow>>(trace.db(), "ORDER BY step");
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].step == 5);
  CHECK(steps[0].start_ns == 0);
  CHECK(steps[0].end_ns == 100'000);
  CHECK(steps[1].step == 6);
  CHECK(steps[1].start_ns == 100'000);
  CHECK(steps[1].end_ns == 150'000);
  CHECK(track_name(trace, steps[0].track) == "python / main");
  CHECK_THAT(imported.result.out, Catch::Contains("2 steps (ProfilerStep#N)"));
  CHECK_THAT(imported.result.out, Catch::Contains("4 CPU ops"));
}

TEST_CASE("parity import keeps the correlation ids of a kernel and its launch", "[e2e]") {
  Imported imported;
  import_text(imported, kTrace, "trace.json");
  TraceReader trace(imported.db);
  const auto kernels = schema::read_all<schema::kTable<StoredGpuActivityRow>>(trace.db());
  REQUIRE(kernels.size() == 1);
  const StoredGpuActivityRow& kernel = kernels[0];
  CHECK(kernel.kind == GpuActivityKind::kKernel);
  CHECK(trace.string(kernel.name) == "void k()");
  CHECK(kernel.correlation_id == 42);
  CHECK(kernel.start_ns == 35'000);
  CHECK(kernel.dur_ns == 4'500);
  const auto* stream = trace.track(kernel.track);
  REQUIRE(stream != nullptr);
  CHECK(stream->kind == TrackKind::kGpuStream);
  CHECK(stream->device == 0);
  CHECK(stream->stream == 7);
  REQUIRE(kernel.launch_id);
  const auto launches = schema::read_all<schema::kTable<LaunchConfigRow>>(trace.db());
  REQUIRE(launches.size() == 1);
  CHECK(launches[0].id == *kernel.launch_id);
  CHECK(launches[0].grid == std::array<std::uint32_t, 3>{110, 1, 1});
  CHECK(launches[0].block == std::array<std::uint32_t, 3>{128, 1, 1});
  CHECK(launches[0].registers == 20);

  const auto calls = schema::read_all<schema::kTable<ApiCallRow>>(trace.db());
  REQUIRE(calls.size() == 1);
  CHECK(trace.string(calls[0].name) == "cudaLaunchKernel");
  CHECK(calls[0].correlation_id == 42);
  CHECK(calls[0].start_ns == 25'000);
  CHECK(calls[0].dur_ns == 3'000);
  CHECK(calls[0].track == track_named(trace, "python / main"));
  CHECK_THAT(imported.result.out, Catch::Contains("1 kernels"));
  CHECK_THAT(imported.result.out, Catch::Contains("1 CUDA API calls"));
}

TEST_CASE("parity import makes [memory] instants a counter track", "[e2e]") {
  Imported imported;
  import_text(imported, kTrace, "trace.json");
  TraceReader trace(imported.db);
  const TrackId memory = track_named(trace, "memory allocated (cuda:0)");
  CHECK(trace.track(memory)->kind == TrackKind::kCounter);
  const auto samples = schema::read_all<schema::kTable<CounterRow>>(trace.db(), "ORDER BY ts_ns");
  REQUIRE(samples.size() == 2);
  CHECK(samples[0].track == memory);
  CHECK(samples[0].ts_ns == 21'000);
  CHECK(samples[0].value == 4096.0);
  CHECK(samples[1].ts_ns == 31'000);
  CHECK(samples[1].value == 8192.0);
  CHECK_THAT(imported.result.out, Catch::Contains("2 memory samples ([memory])"));
}

TEST_CASE("parity import lists the events it did not import by kind", "[e2e]") {
  Imported imported;
  import_text(imported, kTrace, "trace.json");
  const std::string& out = imported.result.out;
  INFO(out);
  CHECK_THAT(out, Catch::Contains("read 18 events"));
  CHECK_THAT(out, Catch::Contains("PyTorch profiler (Kineto)"));
  const auto listed = out.find("not imported:");
  REQUIRE(listed != std::string::npos);
  const std::string not_imported = out.substr(listed);
  CHECK_THAT(not_imported, Catch::Contains("2 events of ph 'b'"));
  CHECK_THAT(not_imported, Catch::Contains("1 flow arrows"));
  CHECK_THAT(out, Catch::Contains("wrote " + imported.db.string()));
  CHECK_FALSE(fs::exists(imported.db.string() + ".partial"));
}

TEST_CASE("parity import reads the legacy profiler's bare array, even unclosed", "[e2e]") {
  Imported imported;
  import_text(imported,
              "[{\"name\": \"aten::add\", \"ph\": \"X\", \"ts\": 10, \"dur\": 5, \"tid\": 1, "
              "\"pid\": \"CPU functions\", \"args\": {}},\n"
              "{\"name\": \"my_block\", \"ph\": \"X\", \"ts\": 8, \"dur\": 20, \"tid\": 1, "
              "\"pid\": \"CPU functions\", \"args\": {}},\n",
              "legacy.json");
  CHECK_THAT(imported.result.out, Catch::Contains("legacy autograd profiler"));
  CHECK_THAT(imported.result.out, Catch::Contains("not closed"));
  TraceReader trace(imported.db);
  const auto ranges = schema::read_all<schema::kTable<RangeRow>>(trace.db(), "ORDER BY id");
  REQUIRE(ranges.size() == 2);
  CHECK(trace.string(ranges[0].name) == "my_block");
  CHECK(ranges[0].category == Category::kUser);
  CHECK(trace.string(ranges[1].name) == "aten::add");
  CHECK(ranges[1].category == Category::kOp);
  CHECK(ranges[1].parent_id == 1);
  CHECK(track_name(trace, ranges[0].track) == "process CPU functions / thread 1");
}

TEST_CASE("parity import refuses a truncated file naming it and the byte", "[e2e]") {
  TempDir dir;
  const fs::path in = dir / "cut.json";
  write_file(in, kTrace.substr(0, kTrace.find("aten::relu")));
  const fs::path out = dir / "run.db";
  const auto result = parity_cli({"import", in.string(), "-o", out.string()});
  check_refused(result, in.string());
  CHECK_THAT(result.err, Catch::Contains("byte"));
  CHECK_FALSE(fs::exists(out));
  CHECK_FALSE(fs::exists(out.string() + ".partial"));
}

TEST_CASE("parity import refuses an event with a bad field and leaves no output", "[e2e]") {
  TempDir dir;
  const fs::path in = dir / "bad.json";
  const std::string head = R"j({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2},)j";
  write_file(in, head + R"j({"ph": "X", "name": "b", "ts": true, "dur": 2}]})j");
  const fs::path out = dir / "run.db";
  const auto result = parity_cli({"import", in.string(), "-o", out.string()});
  check_refused(result, "the event at byte " + std::to_string(head.size()));
  CHECK_THAT(result.err, Catch::Contains(in.string()));
  CHECK_FALSE(fs::exists(out));
  CHECK_FALSE(fs::exists(out.string() + ".partial"));
}

TEST_CASE("parity import refuses an event with no ts naming its byte offset", "[e2e]") {
  TempDir dir;
  const fs::path in = dir / "no_ts.json";
  const std::string head =
      std::string(R"j({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2},)j") + "\n";
  write_file(in, head + R"j({"ph": "X", "name": "b", "dur": 2}]})j");
  const fs::path out = dir / "run.db";
  const auto result = parity_cli({"import", in.string(), "-o", out.string()});
  check_refused(result, "event at byte " + std::to_string(head.size()) + " has no \"ts\"");
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("parity import survives a malformed distributedInfo member", "[e2e]") {
  // Found by fuzz/chrome_trace_fuzz.cpp: the member's text is not JSON (the
  // stream reader only matches its brackets and quotes).
  TempDir dir;
  const fs::path in = dir / "dist.json";
  write_file(in, R"j({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2}], )j"
                 R"j("distributedInfo": {"backend": "nccl", "rank": 0, "world_siz} :2"e}})j");
  const auto result = parity_cli({"import", in.string(), "-o", (dir / "run.db").string()});
  INFO("stdout: " << result.out << "\nstderr: " << result.err);
  CHECK(result.exit_code != -1);  // not killed by a signal
  CHECK((result.exit_code == 0 || result.exit_code == 2));
}

TEST_CASE("parity import refuses to overwrite its output without --force", "[e2e]") {
  TempDir dir;
  const fs::path in = dir / "trace.json";
  write_file(in, kTrace);
  const fs::path out = dir / "run.db";
  write_file(out, "precious");
  check_refused(parity_cli({"import", in.string(), "-o", out.string()}), "the output exists");
  {
    std::ifstream kept(out);
    std::string text;
    std::getline(kept, text);
    CHECK(text == "precious");
  }
  const auto forced = parity_cli({"import", in.string(), "-o", out.string(), "--force"});
  INFO(forced.err);
  REQUIRE(forced.exit_code == 0);
  TraceReader trace(out);
  CHECK(schema::read_all<schema::kTable<StepRow>>(trace.db()).size() == 2);
}

TEST_CASE("parity import writes beside the input by default", "[e2e]") {
  TempDir dir;
  const fs::path in = dir / "trace.json";
  write_file(in, kTrace);
  const auto result = parity_cli({"import", in.string()});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(fs::exists(dir / "trace.db"));
}

TEST_CASE("parity import reads a gzip-compressed trace as the plain one", "[e2e]") {
  TempDir dir;
  const fs::path in = dir / "trace.json.gz";
  gzFile file = gzopen(in.string().c_str(), "wb");
  REQUIRE(file != nullptr);
  REQUIRE(gzwrite(file, kTrace.data(), static_cast<unsigned>(kTrace.size())) ==
          static_cast<int>(kTrace.size()));
  REQUIRE(gzclose(file) == Z_OK);
  const auto result = parity_cli({"import", in.string()});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("read 18 events"));
  TraceReader trace(dir / "trace.db");  // trace.json.gz -> trace.db
  CHECK(schema::read_all<schema::kTable<RangeRow>>(trace.db()).size() == 7);
  CHECK(schema::read_all<schema::kTable<StepRow>>(trace.db()).size() == 2);
}

TEST_CASE("parity info reads a Chrome trace directly, through a cache beside it", "[e2e]") {
  TempDir dir;
  const fs::path in = dir / "trace.json";
  const fs::path cache = dir / "trace.json.parity.db";
  write_file(in, kTrace);

  const auto first = parity_cli({"info", in.string()});
  INFO("stdout: " << first.out << "\nstderr: " << first.err);
  REQUIRE(first.exit_code == 0);
  CHECK_THAT(first.out, Catch::Contains("python / main"));
  REQUIRE(fs::exists(cache));
  const auto made = fs::last_write_time(cache);

  const auto second = parity_cli({"info", in.string()});
  REQUIRE(second.exit_code == 0);
  CHECK(second.out == first.out);
  CHECK(fs::last_write_time(cache) == made);

  // Another step: the cache is made again and says so.
  std::string changed = kTrace;
  const std::string extra =
      R"j({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7", "pid": 1, "tid": 1, "ts": 250, "dur": 30},)j";
  changed.insert(changed.find("{\"ph\": \"B\""), extra + "\n    ");
  write_file(in, changed);
  const auto third = parity_cli({"info", in.string()});
  REQUIRE(third.exit_code == 0);
  CHECK(fs::last_write_time(cache) != made);
  TraceReader trace(cache);
  CHECK(schema::read_all<schema::kTable<StepRow>>(trace.db()).size() == 3);
  for (const auto& entry : fs::directory_iterator(dir.path()))
    CHECK_THAT(entry.path().filename().string(), !Catch::Contains("partial"));
}

TEST_CASE("parity info refuses a truncated Chrome trace and keeps no cache", "[e2e]") {
  TempDir dir;
  const fs::path in = dir / "trace.json";
  write_file(in, kTrace.substr(0, kTrace.size() / 2));
  const auto result = parity_cli({"info", in.string()});
  check_refused(result, in.string());
  CHECK_THAT(result.err, Catch::Contains("byte"));
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir.path()))
    left.push_back(entry.path().filename().string());
  CHECK(left == std::vector<std::string>{"trace.json"});
}

// One training step as PyTorch 2.x writes it: the DataLoader's batch, the
// forward's ops, zero_grad between forward and backward, the autograd
// engine's work (on a thread of its own, as for CUDA tensors) and the
// optimizer; a second step that never ran backward (evaluation).
const std::string kTrainingSteps = R"j({"schemaVersion": 1, "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 1000, "dur": 1000},
  {"ph": "X", "cat": "user_annotation", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 1, "tid": 1, "ts": 1010, "dur": 90},
  {"ph": "X", "cat": "cpu_op", "name": "aten::stack", "pid": 1, "tid": 1, "ts": 1020, "dur": 50},
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 1120, "dur": 200},
  {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 1130, "dur": 180},
  {"ph": "X", "cat": "cpu_op", "name": "aten::cross_entropy_loss", "pid": 1, "tid": 1, "ts": 1330, "dur": 60},
  {"ph": "X", "cat": "user_annotation", "name": "Optimizer.zero_grad#SGD.zero_grad", "pid": 1, "tid": 1, "ts": 1400, "dur": 20},
  {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: AddmmBackward0", "pid": 1, "tid": 2, "ts": 1450, "dur": 300},
  {"ph": "X", "cat": "cpu_op", "name": "AddmmBackward0", "pid": 1, "tid": 2, "ts": 1455, "dur": 290},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 1460, "dur": 280},
  {"ph": "X", "cat": "user_annotation", "name": "Optimizer.step#SGD.step", "pid": 1, "tid": 1, "ts": 1800, "dur": 150},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 2000, "dur": 500},
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 2100, "dur": 200}
]})j";

TEST_CASE("parity import derives forward and backward phases from the autograd engine's work",
          "[e2e]") {
  Imported imported;
  import_text(imported, kTrainingSteps, "trace.json");
  CHECK_THAT(imported.result.out,
             Catch::Contains("1 steps given forward and backward phases (derived)"));
  CHECK_THAT(imported.result.out, Catch::Contains("forward and backward are derived"));
  TraceReader trace(imported.db);
  std::map<std::string, std::vector<RangeRow>> phases;
  for (const RangeRow& range :
       schema::read_all<schema::kTable<RangeRow>>(trace.db(), "ORDER BY id"))
    if (range.category == Category::kPhase) phases[trace.string(range.name)].push_back(range);
  // Times from the earliest event, ts 1000 us. Forward runs from the first op
  // after the DataLoader's batch to zero_grad; backward spans the engine's
  // work on thread 2 and is put on the step's thread.
  REQUIRE(phases["forward"].size() == 1);
  CHECK(phases["forward"][0].start_ns == 120'000);
  CHECK(phases["forward"][0].dur_ns == 280'000);
  REQUIRE(phases["backward"].size() == 1);
  CHECK(phases["backward"][0].start_ns == 450'000);
  CHECK(phases["backward"][0].dur_ns == 300'000);
  const TrackId main = track_named(trace, "process 1 / thread 1");
  CHECK(phases["forward"][0].track == main);
  CHECK(phases["backward"][0].track == main);

  const ProcessResult report = parity_cli({"report", imported.db.string(), "--format", "json"});
  INFO(report.err);
  REQUIRE(report.exit_code == 0);
  CHECK_THAT(report.out, Catch::Contains("\"backward\""));
}

TEST_CASE("parity import adds no phases to a trace without backward", "[e2e]") {
  Imported imported;
  import_text(imported, kTrace, "trace.json");
  CHECK_THAT(imported.result.out, !Catch::Contains("forward and backward phases (derived)"));
  CHECK_THAT(imported.result.out, Catch::Contains("shows no autograd work inside a step"));
}

TEST_CASE("parity tune-allreduce on a PyTorch trace names what the source does not give", "[e2e]") {
  TempDir dir;
  write_file(dir / "trace.json", kTrainingSteps);
  const ProcessResult tuned = parity_cli({"tune-allreduce", (dir / "trace.json").string()});
  CHECK(tuned.exit_code == 2);
  CHECK_THAT(tuned.err, Catch::Contains("no parameters"));
  CHECK_THAT(tuned.err, Catch::Contains("a PyTorch profiler (Kineto) trace does not give"));
}

// GPU activity and API calls are written while the file is still read, with
// times from the earliest event seen so far (row_stream.hpp): an earlier event
// that comes later moves them all.
TEST_CASE("parity import places kernels right when an earlier event comes after them", "[e2e]") {
  Imported imported;
  import_text(imported, R"j({"traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 500, "dur": 3, "args": {"correlation": 7}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 510, "dur": 20, "args": {"device": 0, "stream": 7, "correlation": 7}},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 100, "dur": 600}
  ]})j",
              "trace.json");
  TraceReader trace(imported.db);
  const auto kernels = schema::read_all<schema::kTable<StoredGpuActivityRow>>(trace.db(), "");
  REQUIRE(kernels.size() == 1);
  CHECK(kernels[0].start_ns == 410'000);
  CHECK(kernels[0].dur_ns == 20'000);
  const auto calls = schema::read_all<schema::kTable<ApiCallRow>>(trace.db(), "");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0].start_ns == 400'000);
  const auto steps = schema::read_all<schema::kTable<StepRow>>(trace.db(), "");
  REQUIRE(steps.size() == 1);
  CHECK(steps[0].start_ns == 0);
}

TEST_CASE("parity import leaves no output when the file goes wrong after its kernels", "[e2e]") {
  TempDir dir;
  std::string text = R"({"traceEvents": [)";
  for (int i = 0; i < 20000; ++i)  // more than one batch of streamed rows
    text += R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": )" +
            std::to_string(100 + i) + R"(, "dur": 1, "args": {"stream": 7}}, )";
  text += R"({"ph": "X", "name": "cut)";
  write_file(dir / "trace.json", text);
  const fs::path out = dir / "run.db";
  const ProcessResult result =
      parity_cli({"import", (dir / "trace.json").string(), "-o", out.string()});
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("at byte"));
  CHECK_FALSE(fs::exists(out));
  CHECK_FALSE(fs::exists(out.string() + "-wal"));
  CHECK_FALSE(fs::exists(out.string() + "-shm"));
}
