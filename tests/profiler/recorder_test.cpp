#include "parity/profiler/recorder.hpp"

#include <sys/resource.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <map>
#include <thread>
#include <vector>

#include "file_size_limit.hpp"
#include "log_capture.hpp"
#include "parity/core/error.hpp"
#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "recorder_options.hpp"
#include "temp_dir.hpp"

using namespace parity::profiler;

namespace {

struct StoredRange {
  std::int64_t track, start, dur, id, depth;
  std::optional<std::int64_t> parent, arg;
  std::string name;
  int category;
};

std::vector<StoredRange> read_ranges(TraceReader& trace) {
  std::vector<StoredRange> ranges;
  schema::for_each<schema::kTable<RangeRow>>(
      trace.db(), "ORDER BY track_id, start_ns, id", [&](const RangeRow& row) {
        ranges.push_back({row.track, row.start_ns, row.dur_ns, row.id, row.depth, row.parent_id,
                          row.arg, trace.string(row.name), static_cast<int>(row.category)});
      });
  return ranges;
}

// Every range with a parent lies inside it, on the same track, one level deeper.
void check_nesting(const std::vector<StoredRange>& ranges) {
  std::map<std::int64_t, const StoredRange*> by_id;
  for (const auto& range : ranges) by_id[range.id] = &range;
  for (const auto& range : ranges) {
    if (range.depth == 0) {
      REQUIRE_FALSE(range.parent.has_value());
      continue;
    }
    REQUIRE(range.parent.has_value());
    const StoredRange* parent = by_id.at(*range.parent);
    REQUIRE(parent->track == range.track);
    REQUIRE(parent->depth == range.depth - 1);
    REQUIRE(parent->start <= range.start);
    REQUIRE(range.start + range.dur <= parent->start + parent->dur);
  }
}

}  // namespace

TEST_CASE("nested scopes become ranges with depth, parent and a step row", "[unit]") {
  TempDir dir;
  {
    Recorder recorder(recorder_options(dir / "run.db", "recorder_test"));
    recorder.name_thread("trainer");
    {
      Scope step(recorder, intern("step"), Category::kStep, 41);
      {
        Scope layer(recorder, intern("layer1.0.conv1"), Category::kLayer);
        Scope op(recorder, intern("convolution"), Category::kOp);
      }
      Scope phase(recorder, intern("optimizer"), Category::kPhase);
    }
  }
  TraceReader trace(dir / "run.db");
  const auto ranges = read_ranges(trace);
  REQUIRE(ranges.size() == 4);
  CHECK(ranges[0].name == "step");
  CHECK(ranges[0].arg == 41);
  CHECK(ranges[0].category == static_cast<int>(Category::kStep));
  CHECK(ranges[1].name == "layer1.0.conv1");
  CHECK(ranges[1].depth == 1);
  CHECK(ranges[2].name == "convolution");
  CHECK(ranges[2].depth == 2);
  CHECK(ranges[2].parent == ranges[1].id);
  CHECK(ranges[3].name == "optimizer");
  CHECK(ranges[3].parent == ranges[0].id);
  check_nesting(ranges);
  CHECK(sql::query_int(trace.db(), "SELECT step FROM step") == 41);
  CHECK(trace.string(trace.tracks().at(0).name) == "trainer");
  CHECK(trace.meta_value("complete") == "1");
  CHECK(trace.meta_value("command_line") == "recorder_test");
}

TEST_CASE("many threads record at once, every range is stored and nested", "[unit]") {
  constexpr int kThreads = 8, kIterations = 3000;
  TempDir dir;
  RecorderStats stats;
  {
    Recorder recorder(recorder_options(dir / "run.db", "recorder_test"));
    const NameId outer = intern("outer"), inner = intern("inner"), leaf = intern("leaf");
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < kIterations; ++i) {
          Scope a(recorder, outer, Category::kLayer);
          {
            Scope b(recorder, inner, Category::kOp);
            Scope c(recorder, leaf, Category::kOp);
          }
          recorder.counter(intern("progress"), i);
        }
      });
    }
    for (auto& thread : threads) thread.join();
    recorder.flush();
    stats = recorder.stats();
  }
  CHECK(stats.dropped == 0);
  TraceReader trace(dir / "run.db");
  const auto ranges = read_ranges(trace);
  REQUIRE(ranges.size() == std::size_t{kThreads} * kIterations * 3);
  check_nesting(ranges);
  std::map<std::int64_t, int> per_track;
  for (const auto& range : ranges) ++per_track[range.track];
  REQUIRE(per_track.size() == kThreads);
  for (const auto& [track, count] : per_track) CHECK(count == kIterations * 3);
  CHECK(sql::query_int(trace.db(), "SELECT count(*) FROM counter") == kThreads * kIterations);
  // All threads' counters share one counter track.
  CHECK(sql::query_int(trace.db(), "SELECT count(DISTINCT track_id) FROM counter") == 1);
  CHECK(trace.meta_value("dropped_records") == "0");
}

TEST_CASE("counters, queue samples, gradients and collectives are stored", "[unit]") {
  TempDir dir;
  {
    Recorder recorder(recorder_options(dir / "run.db", "recorder_test"));
    recorder.add_parameter({0, "conv1.weight", "64,3,7,7", "float32", 37632});
    Scope step(recorder, intern("step"), Category::kStep, 3);
    recorder.counter(intern("loss"), 0.8125);
    recorder.queue_sample(intern("train_queue"), QueueRole::kConsumer, 2, 8, 1500);
    recorder.gradient_ready(0, 37632);
    const Ticks start = read_ticks();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    recorder.collective({intern("allreduce"), CollectiveOp::kAllReduce, start, read_ticks(), 37632,
                         parity::DType::kFloat32, 4, 0, 1});
    recorder.instant(intern("checkpoint saved"), Category::kUser, 12);
  }
  TraceReader trace(dir / "run.db");
  CHECK(sql::query_int(trace.db(),
                       "SELECT count(*) FROM counter c JOIN track t ON t.id = "
                       "c.track_id JOIN string s ON s.id = t.name_id WHERE "
                       "s.text = 'loss' AND t.kind = 5 AND c.value = 0.8125") == 1);
  const auto queue = schema::read_one<schema::kTable<QueueSampleRow>>(trace.db());
  REQUIRE(queue);
  CHECK(queue->depth == 2);
  CHECK(queue->capacity == 8);
  CHECK(queue->role == QueueRole::kConsumer);
  CHECK(queue->wait_ns == 1500);
  const auto grad = schema::read_one<schema::kTable<GradReadyRow>>(trace.db());
  REQUIRE(grad);
  CHECK(grad->step == 3);  // the step that was running
  CHECK(grad->bytes == 37632);
  const auto parameters = trace.parameters();
  REQUIRE(parameters.size() == 1);
  CHECK(parameters[0].index == grad->param_index);
  CHECK(parameters[0].name == "conv1.weight");
  const auto collective = schema::read_one<schema::kTable<CollectiveRow>>(trace.db());
  REQUIRE(collective);
  CHECK(collective->op == CollectiveOp::kAllReduce);
  CHECK(collective->bytes == 37632);
  CHECK(collective->dtype == "float32");
  CHECK(collective->bucket == 4);
  CHECK(collective->last_param == 1);
  CHECK(collective->step == 3);
  CHECK(collective->dur_ns >= 2'000'000);
  CHECK(sql::query_int(trace.db(), "SELECT arg FROM instant") == 12);
}

TEST_CASE("timestamps are on CLOCK_MONOTONIC minus the trace origin", "[unit]") {
  TempDir dir;
  std::int64_t before_first = 0, after_first = 0, before_second = 0, after_second = 0;
  {
    Recorder recorder(recorder_options(dir / "run.db", "recorder_test"));
    const NameId mark = intern("mark");
    before_first = monotonic_ns();
    recorder.instant(mark, Category::kUser);
    after_first = monotonic_ns();
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    before_second = monotonic_ns();
    recorder.instant(mark, Category::kUser);
    after_second = monotonic_ns();
  }
  TraceReader trace(dir / "run.db");
  const std::int64_t origin = std::stoll(*trace.meta_value("clock_origin_ns"));
  const auto marks = schema::read_all<schema::kTable<InstantRow>, &InstantRow::ts_ns>(
      trace.db(), "ORDER BY ts_ns");
  REQUIRE(marks.size() == 2);
  const std::int64_t first = marks[0].ts_ns + origin;
  const std::int64_t second = marks[1].ts_ns + origin;
  constexpr std::int64_t kSlackNs = 2000;  // tick/ns pairing jitter
  CHECK(first >= before_first - kSlackNs);
  CHECK(first <= after_first + kSlackNs);
  CHECK(second >= before_second - kSlackNs);
  CHECK(second <= after_second + kSlackNs);
}

TEST_CASE("records timed on CLOCK_MONOTONIC (a GPU's) keep their nanoseconds exactly", "[unit]") {
  TempDir dir;
  const std::int64_t ready = monotonic_ns() - 5'000'000;  // in the past, as a GPU's are
  {
    Recorder recorder(recorder_options(dir / "run.db", "recorder_test"));
    recorder.on_step_begin(7);
    recorder.gradient_ready_at(3, 1024, ready);
    CollectiveEvent reduce{
        intern("nccl"), CollectiveOp::kAllReduce, 0, 0, 4096, parity::DType::kFloat32, 1, 2, 3};
    reduce.time_base = TimeBase::kMonotonicNs;
    reduce.start = static_cast<Ticks>(ready + 1'000);
    reduce.end = static_cast<Ticks>(ready + 251'000);
    recorder.collective(reduce);
    recorder.gradient_ready(4, 2048);  // the tick clock still, in the same ring
  }
  TraceReader trace(dir / "run.db");
  const std::int64_t origin = std::stoll(*trace.meta_value("clock_origin_ns"));
  const auto grads = schema::read_all<schema::kTable<GradReadyRow>>(trace.db(), "ORDER BY ts_ns");
  REQUIRE(grads.size() == 2);
  CHECK(grads[0].param_index == 3);
  CHECK(grads[0].ts_ns + origin == ready);
  CHECK(grads[0].step == 7);
  CHECK(grads[1].param_index == 4);
  CHECK(grads[1].ts_ns + origin > ready + 4'000'000);
  const auto collective = schema::read_one<schema::kTable<CollectiveRow>>(trace.db());
  REQUIRE(collective);
  CHECK(collective->start_ns + origin == ready + 1'000);
  CHECK(collective->dur_ns == 250'000);
  CHECK(collective->step == 7);
  CHECK(collective->bucket == 1);
}

TEST_CASE("the capture window: nothing outside it, open ranges closed at stop", "[unit]") {
  TempDir dir;
  std::int64_t stop_time = 0;
  {
    RecorderOptions options = recorder_options(dir / "run.db", "recorder_test");
    options.capture_at_start = false;
    Recorder recorder(options);
    const NameId name = intern("window");
    { Scope before(recorder, intern("before start"), Category::kUser); }
    recorder.start();
    {
      Scope open(recorder, intern("open at stop"), Category::kUser);
      recorder.instant(name, Category::kUser);
      recorder.stop();
      stop_time = recorder.now_ns();
      recorder.instant(name, Category::kUser);  // outside: dropped silently, not counted
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    { Scope after(recorder, intern("after stop"), Category::kUser); }
    recorder.start();
    {
      Scope outer(recorder, intern("spans a restart"), Category::kUser);
      recorder.stop();
      recorder.start();
      Scope inner(recorder, intern("second window"), Category::kUser);
    }
    CHECK(recorder.stats().dropped == 0);
  }
  TraceReader trace(dir / "run.db");
  const auto ranges = read_ranges(trace);
  std::vector<std::string> names;
  for (const auto& range : ranges) names.push_back(range.name);
  CHECK_THAT(names, Catch::UnorderedEquals(std::vector<std::string>{
                        "open at stop", "spans a restart", "second window"}));
  for (const auto& range : ranges) {
    if (range.name == "open at stop") CHECK(range.start + range.dur <= stop_time);
    // Its enclosing range was closed when the first window ended.
    if (range.name == "second window") CHECK(range.depth == 0);
  }
  CHECK(sql::query_int(trace.db(), "SELECT count(*) FROM instant") == 1);
}

TEST_CASE("full rings drop records and count every one", "[unit]") {
  constexpr int kBursts = 200, kInstantsPerBurst = 30, kScopesPerBurst = 40;
  TempDir dir;
  RecorderStats stats;
  {
    RecorderOptions options = recorder_options(dir / "run.db", "recorder_test");
    options.slots_per_thread = 64;
    Recorder recorder(options);
    const NameId name = intern("burst");
    // Each burst overfills the emptied ring, so that it runs full at every
    // possible point: between ranges, inside one, inside two.
    for (int burst = 0; burst < kBursts; ++burst) {
      for (int i = 0; i < kInstantsPerBurst; ++i) recorder.instant(name, Category::kUser);
      for (int i = 0; i < kScopesPerBurst; ++i) {
        Scope outer(recorder, name, Category::kLayer);
        recorder.instant(name, Category::kUser);
        Scope inner(recorder, name, Category::kOp);
      }
      recorder.flush();
    }
    stats = recorder.stats();
  }
  TraceReader trace(dir / "run.db");
  const auto instants = sql::query_int(trace.db(), "SELECT count(*) FROM instant");
  const auto ranges = sql::query_int(trace.db(), "SELECT count(*) FROM range");
  CHECK(stats.dropped > 0);
  // Each lost instant and each lost range begin is counted once; a range whose
  // begin was kept never loses its end, so every stored range is well nested.
  CHECK(static_cast<std::uint64_t>(instants + ranges) + stats.dropped ==
        std::uint64_t{kBursts} * (kInstantsPerBurst + 3 * kScopesPerBurst));
  CHECK(trace.meta_value("dropped_records") == std::to_string(stats.dropped));
  const auto stored = read_ranges(trace);
  check_nesting(stored);
  for (const auto& range : stored) REQUIRE(range.depth <= 1);
}

TEST_CASE("flush makes records visible to another connection while recording", "[unit]") {
  TempDir dir;
  Recorder recorder(recorder_options(dir / "run.db", "recorder_test"));
  for (int i = 0; i < 100; ++i) Scope scope(recorder, intern("early"), Category::kOp);
  recorder.flush();
  TraceReader reader(dir / "run.db");
  CHECK(sql::query_int(reader.db(), "SELECT count(*) FROM range") == 100);
  CHECK(reader.meta_value("complete") == "0");
}

TEST_CASE("GPU activity and API calls from a collector are stored", "[unit]") {
  TempDir dir;
  {
    Recorder recorder(recorder_options(dir / "run.db", "recorder_test"));
    const TrackId stream = recorder.gpu_stream_track(0, 7);
    CHECK(recorder.gpu_stream_track(0, 7) == stream);
    GpuActivityRow kernel;
    kernel.track = stream;
    kernel.start_ns = recorder.now_ns();
    kernel.id = 1;
    kernel.dur_ns = 1000;
    kernel.name = intern("sgemm");
    kernel.correlation_id = 5;
    kernel.launch = LaunchConfig{{4, 1, 1}, {128, 1, 1}, 0, 32};
    recorder.add_gpu_activities({kernel});
    recorder.add_api_calls({ApiCallRow{1, kernel.start_ns - 500, 2, 100, ApiKind::kRuntime,
                                       intern("cudaLaunchKernel"), 5}});
  }
  TraceReader trace(dir / "run.db");
  CHECK(sql::query_int(trace.db(),
                       "SELECT count(*) FROM gpu_activity g JOIN api_call a ON "
                       "a.correlation_id = g.correlation_id") == 1);
  CHECK(sql::query_int(trace.db(),
                       "SELECT count(*) FROM track WHERE kind = 3 AND device = 0 "
                       "AND stream = 7") == 1);
}

TEST_CASE("bad recorder options are refused with a clear error", "[unit]") {
  TempDir dir;
  RecorderOptions options = recorder_options(dir / "run.db", "recorder_test");
  options.slots_per_thread = 1000;
  CHECK_THROWS_WITH(Recorder(options), Catch::Contains("power of two"));
  CHECK_FALSE(std::filesystem::exists(dir / "run.db"));
  options.slots_per_thread = 1024;
  options.path = dir / "missing-dir" / "run.db";
  CHECK_THROWS_AS(Recorder(options), parity::Error);
}

TEST_CASE("a database that stops accepting writes never stops the recording thread", "[unit]") {
  TempDir dir;
  ScopedLogCapture log;
  RecorderStats stats;
  constexpr int kRanges = 400000;
  {
    Recorder recorder(recorder_options(dir / "run.db", "recorder_test"));
    FileSizeLimit limit(256 * 1024);
    const NameId name = intern("work");
    for (int i = 0; i < kRanges; ++i) {
      Scope scope(recorder, name, Category::kOp);
      if (i % 50000 == 0) recorder.flush();  // returns even though the writer has failed
    }
    recorder.flush();
    stats = recorder.stats();
  }
  CHECK(stats.writer_failed);
  CHECK(stats.dropped > 0);
  CHECK(stats.rows_written + stats.dropped >= kRanges);
  const auto messages = log.messages();
  REQUIRE_FALSE(messages.empty());
  CHECK_THAT(messages.front(), Catch::Contains("trace writer failed"));
}
