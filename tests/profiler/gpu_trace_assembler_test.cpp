// GpuTraceAssembler and attribute_gpu_work on synthetic CUPTI records with
// chosen timestamps and correlation ids, written through a real Recorder
// into a real trace database and read back.
#include "parity/profiler/gpu_trace_assembler.hpp"

#include <pthread.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <thread>
#include <vector>

#include "parity/profiler/gpu_attribution.hpp"
#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "recorder_options.hpp"
#include "temp_dir.hpp"

using namespace parity::profiler;

namespace {

std::string name_api(ApiKind kind, std::uint32_t callback_id) {
  return std::string(kind == ApiKind::kRuntime ? "cudaCall" : "cuCall") +
         std::to_string(callback_id);
}

std::uint32_t this_cupti_thread() { return static_cast<std::uint32_t>(pthread_self()); }

DeviceActivityRecord kernel(std::uint64_t start, std::uint64_t end, std::uint32_t correlation,
                            std::string_view name, std::uint32_t stream = 7) {
  DeviceActivityRecord record;
  record.kind = GpuActivityKind::kKernel;
  record.start_ns = start;
  record.end_ns = end;
  record.device = 0;
  record.context = 1;
  record.stream = stream;
  record.correlation_id = correlation;
  record.name = name;
  record.launch = LaunchConfig{{128, 2, 1}, {256, 1, 1}, 1024, 32};
  return record;
}

ApiActivityRecord launch(std::uint64_t start, std::uint64_t end, std::uint32_t correlation,
                         std::uint32_t callback_id = 211) {
  ApiActivityRecord record;
  record.kind = ApiKind::kRuntime;
  record.callback_id = callback_id;
  record.start_ns = start;
  record.end_ns = end;
  record.thread_id = this_cupti_thread();
  record.correlation_id = correlation;
  return record;
}

DeviceActivityRecord sync(std::uint64_t start, std::uint64_t end, std::uint32_t context,
                          SyncKind kind) {
  DeviceActivityRecord record;
  record.kind = GpuActivityKind::kSync;
  record.start_ns = start;
  record.end_ns = end;
  record.context = context;
  record.stream = kind == SyncKind::kContext ? kNoStream : 7;
  record.sync = kind;
  return record;
}

struct StoredActivity {
  std::int64_t start, dur;
  std::string name, track;
  int kind;
  std::optional<std::int64_t> correlation, bytes, copy_kind, grid_x, registers;
};

// A gpu_activity row with the parts of its launch configuration the tests check.
struct LaunchedActivity : StoredGpuActivityRow {
  std::optional<std::int64_t> grid_x, registers;
};
constexpr auto kLaunchedActivities = schema::projection<LaunchedActivity>(
    "gpu_activity", "gpu_activity g LEFT JOIN launch_config l ON l.id = g.launch_id",
    schema::column<LaunchedActivity>("g.start_ns", &LaunchedActivity::start_ns),
    schema::column<LaunchedActivity>("g.dur_ns", &LaunchedActivity::dur_ns),
    schema::column<LaunchedActivity>("g.name_id", &LaunchedActivity::name),
    schema::column<LaunchedActivity>("g.track_id", &LaunchedActivity::track),
    schema::column<LaunchedActivity>("g.kind", &LaunchedActivity::kind),
    schema::column<LaunchedActivity>("g.correlation_id", &LaunchedActivity::correlation_id),
    schema::column<LaunchedActivity>("g.bytes", &LaunchedActivity::bytes),
    schema::column<LaunchedActivity>("g.copy_kind", &LaunchedActivity::copy_kind),
    schema::column<LaunchedActivity>("l.grid_x", &LaunchedActivity::grid_x),
    schema::column<LaunchedActivity>("l.registers", &LaunchedActivity::registers));

std::vector<StoredActivity> read_activities(TraceReader& trace) {
  std::vector<StoredActivity> rows;
  schema::for_each<kLaunchedActivities>(
      trace.db(), "ORDER BY g.start_ns, g.id", [&](const LaunchedActivity& row) {
        rows.push_back({row.start_ns, row.dur_ns, trace.string(row.name),
                        trace.string(trace.track(row.track)->name), static_cast<int>(row.kind),
                        row.correlation_id, row.bytes, row.copy_kind, row.grid_x, row.registers});
      });
  return rows;
}

std::uint64_t now() { return static_cast<std::uint64_t>(monotonic_ns()); }

// Ranges are timed by the TSC and API calls by CLOCK_MONOTONIC, as with CUPTI:
// a launch a few microseconds inside its range is inside it on the trace clock.
ApiActivityRecord launch_inside(std::uint32_t correlation, std::uint32_t callback_id = 211) {
  const auto spin = [] {
    const std::uint64_t until = now() + 20'000;
    while (now() < until) {
    }
  };
  spin();
  const std::uint64_t start = now();
  spin();
  ApiActivityRecord call = launch(start, now(), correlation, callback_id);
  spin();
  return call;
}

}  // namespace

TEST_CASE("GPU records become rows on stream tracks, on the trace clock, in any order", "[unit]") {
  TempDir dir;
  std::int64_t expected_kernel_start = 0, expected_copy_start = 0;
  {
    Recorder recorder(recorder_options(dir / "run.db", "gpu_trace_assembler_test"));
    GpuTraceAssembler assembler(recorder, name_api);
    const std::uint64_t t0 = now();
    expected_kernel_start = recorder.trace_ns_from_monotonic(static_cast<std::int64_t>(t0 + 5000));
    expected_copy_start = recorder.trace_ns_from_monotonic(static_cast<std::int64_t>(t0 + 1000));

    DeviceActivityRecord copy;
    copy.kind = GpuActivityKind::kMemcpy;
    copy.start_ns = t0 + 1000;
    copy.end_ns = t0 + 3000;
    copy.context = 1;
    copy.stream = 13;
    copy.correlation_id = 3;
    copy.bytes = 4096;
    copy.copy_kind = 1;
    DeviceActivityRecord fill = copy;
    fill.kind = GpuActivityKind::kMemset;
    fill.start_ns = t0 + 3500;
    fill.end_ns = t0 + 3600;
    fill.correlation_id = 4;
    fill.copy_kind.reset();
    const std::string name = "_Z6conv2dPKfPf";
    // The kernel's buffer arrives before the copy's, the launches after both.
    const std::vector<DeviceActivityRecord> first{kernel(t0 + 5000, t0 + 9000, 5, name)};
    const std::vector<DeviceActivityRecord> second{fill, copy};
    assembler.add(first);
    assembler.add(second);
    const std::vector<ApiActivityRecord> calls{launch(t0 + 200, t0 + 900, 3, 41),
                                               launch(t0 + 4000, t0 + 4800, 5)};
    assembler.add(calls);
    assembler.finish();
    const GpuTraceCounts counts = assembler.counts();
    CHECK(counts.kernels == 1);
    CHECK(counts.memcpys == 1);
    CHECK(counts.memsets == 1);
    CHECK(counts.api_calls == 2);
  }
  TraceReader trace(dir / "run.db");
  const auto rows = read_activities(trace);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].name == "memcpy HtoD");
  CHECK(rows[0].start == expected_copy_start);
  CHECK(rows[0].dur == 2000);
  CHECK(rows[0].bytes == 4096);
  CHECK(rows[0].copy_kind == 1);
  CHECK(rows[0].track == "GPU 0 stream 13");
  CHECK(rows[1].name == "memset");
  CHECK(rows[1].bytes == 4096);
  CHECK(rows[2].name == "_Z6conv2dPKfPf");
  CHECK(rows[2].start == expected_kernel_start);
  CHECK(rows[2].dur == 4000);
  CHECK(rows[2].track == "GPU 0 stream 7");
  CHECK(rows[2].correlation == 5);
  CHECK(rows[2].grid_x == 128);
  CHECK(rows[2].registers == 32);
  CHECK(trace.meta_value("gpu.kernels") == "1");
  CHECK(trace.meta_value("gpu.api_calls") == "2");
  CHECK(trace.meta_value("gpu.dropped_records") == "0");

  const auto call = schema::read_one<schema::kTable<ApiCallRow>>(trace.db(), "ORDER BY start_ns");
  REQUIRE(call);
  CHECK(trace.string(call->name) == "cudaCall41");
  CHECK(call->dur_ns == 700);
  CHECK(call->kind == ApiKind::kRuntime);
}

TEST_CASE("every kernel is attributed to its launch and the layer, phase and step around it",
          "[unit]") {
  TempDir dir;
  {
    Recorder recorder(recorder_options(dir / "run.db", "gpu_trace_assembler_test"));
    GpuTraceAssembler assembler(recorder, name_api);
    std::vector<ApiActivityRecord> calls;
    std::vector<DeviceActivityRecord> device;
    const std::string conv = "conv_kernel", relu = "relu_kernel", graph_node = "graph_node";
    {
      Scope step(recorder, intern("step"), Category::kStep, 1);
      Scope phase(recorder, intern("forward"), Category::kPhase);
      {
        Scope layer(recorder, intern("conv1"), Category::kLayer);
        Scope op(recorder, intern("convolution"), Category::kOp);
        calls.push_back(launch_inside(10));
      }
      {
        Scope layer(recorder, intern("relu1"), Category::kLayer);
        calls.push_back(launch_inside(11));
        // A CUDA Graph launch: all its kernels share the launch's correlation id.
        calls.push_back(launch_inside(12, 311));
      }
    }
    const std::uint64_t later = now() + 1'000'000;
    device.push_back(kernel(later, later + 100, 10, conv));
    device.push_back(kernel(later + 200, later + 300, 11, relu));
    for (std::uint32_t node = 0; node < 3; ++node) {
      DeviceActivityRecord record =
          kernel(later + 400 + node * 100, later + 450 + node * 100, 12, graph_node);
      record.graph_id = 9;
      device.push_back(record);
    }
    // A kernel whose launch was never recorded (it happened before capture).
    device.push_back(kernel(later + 900, later + 950, 99, conv));
    assembler.add(device);
    assembler.add(calls);
    CHECK(assembler.counts().graph_kernels == 3);
    assembler.finish();
  }
  TraceReader trace(dir / "run.db");
  const GpuAttribution attribution = attribute_gpu_work(trace);
  CHECK(attribution.summary.activities == 6);
  CHECK(attribution.summary.with_launch == 5);
  CHECK(attribution.summary.with_layer == 5);
  CHECK(attribution.summary.with_phase == 5);

  const auto range_name = [&](std::optional<std::int64_t> id) -> std::string {
    if (!id) return "none";
    const auto range = schema::read_one<schema::kTable<RangeRow>, &RangeRow::name>(
        trace.db(), "WHERE id = " + std::to_string(*id));
    REQUIRE(range);
    return trace.string(range->name);
  };
  std::map<std::string, std::vector<const GpuWorkAttribution*>> by_kernel;
  for (const auto& work : attribution.work) by_kernel[trace.string(work.name)].push_back(&work);
  REQUIRE(by_kernel["conv_kernel"].size() == 2);
  const GpuWorkAttribution* conv = by_kernel["conv_kernel"][0];
  CHECK(range_name(conv->context.layer) == "conv1");
  CHECK(range_name(conv->context.phase) == "forward");
  CHECK(range_name(conv->context.step) == "step");
  CHECK(trace.string(conv->launch_name) == "cudaCall211");
  CHECK_FALSE(by_kernel["conv_kernel"][1]->launch_row.has_value());
  CHECK(range_name(by_kernel["relu_kernel"][0]->context.layer) == "relu1");
  REQUIRE(by_kernel["graph_node"].size() == 3);
  std::set<std::int64_t> graph_launches;
  for (const auto* work : by_kernel["graph_node"]) {
    REQUIRE(work->launch_row.has_value());
    graph_launches.insert(*work->launch_row);
    CHECK(range_name(work->context.layer) == "relu1");
    CHECK(trace.string(work->launch_name) == "cudaCall311");
  }
  CHECK(graph_launches.size() == 1);
  CHECK(trace.meta_value("gpu.graph_kernels") == "3");
  // The launches lie on the thread's own track, the one its ranges are on.
  CHECK(sql::query_int(trace.db(),
                       "SELECT count(*) FROM api_call a WHERE EXISTS (SELECT 1 FROM "
                       "range r WHERE r.track_id = a.track_id)") == 3);
}

TEST_CASE("sync records wait for their context's device; incomplete records are counted",
          "[unit]") {
  TempDir dir;
  {
    Recorder recorder(recorder_options(dir / "run.db", "gpu_trace_assembler_test"));
    GpuTraceAssembler assembler(recorder, name_api);
    const std::uint64_t t0 = now();
    // Context 1's device is unknown until its kernel arrives in a later buffer.
    const std::vector<DeviceActivityRecord> syncs{sync(t0 + 10, t0 + 20, 1, SyncKind::kStream),
                                                  sync(t0 + 30, t0 + 40, 1, SyncKind::kContext)};
    assembler.add(syncs);
    CHECK(assembler.counts().syncs == 0);
    DeviceActivityRecord on_device_2 = kernel(t0 + 50, t0 + 60, 1, "k");
    on_device_2.device = 2;
    DeviceActivityRecord unfinished = kernel(t0 + 70, 0, 2, "k");
    const std::vector<DeviceActivityRecord> kernels{on_device_2, unfinished};
    assembler.add(kernels);
    CHECK(assembler.counts().syncs == 2);
    CHECK(assembler.counts().incomplete == 1);
    // Context 5 never names its device: with one device in the run, it is that one.
    const std::vector<DeviceActivityRecord> orphan{sync(t0 + 80, t0 + 90, 5, SyncKind::kEvent)};
    assembler.add(orphan);
    assembler.count_dropped(17);
    assembler.finish();
    CHECK(assembler.counts().syncs == 3);
    CHECK(assembler.counts().unplaced_syncs == 0);
  }
  TraceReader trace(dir / "run.db");
  const auto rows = read_activities(trace);
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].name == "sync stream");
  CHECK(rows[0].track == "GPU 2 stream 7");
  CHECK(rows[1].name == "sync context");
  CHECK(rows[1].track == "GPU 2 (all streams)");
  CHECK(rows[3].name == "sync event");
  CHECK(trace.meta_value("gpu.incomplete_records") == "1");
  CHECK(trace.meta_value("gpu.dropped_records") == "17");
}

TEST_CASE("a sync on an unknown context with two devices in the run is counted, not guessed",
          "[unit]") {
  TempDir dir;
  Recorder recorder(recorder_options(dir / "run.db", "gpu_trace_assembler_test"));
  GpuTraceAssembler assembler(recorder, name_api);
  const std::uint64_t t0 = now();
  DeviceActivityRecord a = kernel(t0, t0 + 10, 1, "k");
  DeviceActivityRecord b = kernel(t0, t0 + 10, 2, "k");
  b.device = 1;
  b.context = 2;
  const std::vector<DeviceActivityRecord> records{a, b,
                                                  sync(t0 + 20, t0 + 30, 8, SyncKind::kEvent)};
  assembler.add(records);
  assembler.learn_context(3, 1);
  assembler.finish();
  CHECK(assembler.counts().syncs == 0);
  CHECK(assembler.counts().unplaced_syncs == 1);
}

TEST_CASE("API calls of a thread that recorded nothing get a track of their own; clock offset",
          "[unit]") {
  TempDir dir;
  std::int64_t expected_start = 0;
  {
    Recorder recorder(recorder_options(dir / "run.db", "gpu_trace_assembler_test"));
    // Timestamps 1 s ahead of CLOCK_MONOTONIC (CUPTI's own clock, say).
    const std::int64_t offset = -1'000'000'000;
    GpuTraceAssembler assembler(recorder, name_api, offset);
    const std::uint64_t t0 = now() + 1'000'000'000;
    expected_start = recorder.trace_ns_from_monotonic(static_cast<std::int64_t>(t0) + offset);
    ApiActivityRecord call = launch(t0, t0 + 100, 1);
    call.thread_id = 0xdeadbeef;
    call.kind = ApiKind::kDriver;
    const std::vector<ApiActivityRecord> calls{call};
    assembler.add(calls);
  }
  TraceReader trace(dir / "run.db");
  const auto call = schema::read_one<schema::kTable<ApiCallRow>>(trace.db());
  REQUIRE(call);
  CHECK(trace.string(trace.track(call->track)->name) == "CUDA thread 0xdeadbeef");
  CHECK(call->start_ns == expected_start);
  CHECK(trace.string(call->name) == "cuCall211");
}

TEST_CASE("buffers completed on several threads at once all land, with distinct row ids",
          "[unit]") {
  TempDir dir;
  constexpr int kThreads = 4, kBuffers = 50, kPerBuffer = 100;
  {
    Recorder recorder(recorder_options(dir / "run.db", "gpu_trace_assembler_test"));
    GpuTraceAssembler assembler(recorder, name_api);
    const std::uint64_t t0 = now();
    std::vector<std::thread> threads;
    for (int thread = 0; thread < kThreads; ++thread)
      threads.emplace_back([&, thread] {
        const std::string name = "kernel" + std::to_string(thread);
        for (int buffer = 0; buffer < kBuffers; ++buffer) {
          std::vector<DeviceActivityRecord> records;
          for (int i = 0; i < kPerBuffer; ++i) {
            const auto start = t0 + static_cast<std::uint64_t>((buffer * kPerBuffer + i) * 10);
            records.push_back(
                kernel(start, start + 5, 1, name, static_cast<std::uint32_t>(thread)));
          }
          assembler.add(records);
        }
      });
    for (auto& thread : threads) thread.join();
    CHECK(assembler.counts().kernels == kThreads * kBuffers * kPerBuffer);
  }
  TraceReader trace(dir / "run.db");
  CHECK(sql::query_int(trace.db(), "SELECT count(*) FROM gpu_activity") ==
        kThreads * kBuffers * kPerBuffer);
  CHECK(sql::query_int(trace.db(), "SELECT count(DISTINCT id) FROM gpu_activity") ==
        kThreads * kBuffers * kPerBuffer);
  CHECK(sql::query_int(trace.db(), "SELECT count(DISTINCT track_id) FROM gpu_activity") ==
        kThreads);
}
