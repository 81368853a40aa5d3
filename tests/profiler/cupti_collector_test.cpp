// The CUPTI collector on a real GPU ([gpu]): on a machine without one, the
// test prints "SKIPPED: ..." and ctest reports it skipped.
#include "parity/profiler/cupti_collector.hpp"

#include <catch2/catch.hpp>
#include <iostream>
#include <map>
#include <set>

#include "expect_error.hpp"
#include "gpu_work.hpp"
#include "parity/profiler/gpu_attribution.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "recorder_options.hpp"
#include "temp_dir.hpp"

using namespace parity::profiler;
using parity::test::GpuWork;

namespace {

bool skip_without_gpu() {
  const std::string reason = parity::test::gpu_unavailable_reason();
  if (reason.empty()) return false;
  std::cout << "SKIPPED: " << reason << "\n";
  return true;
}

}  // namespace

TEST_CASE("without a GPU the collector refuses with a hint, and recording goes on", "[unit]") {
  if (parity::test::gpu_unavailable_reason().empty()) return;  // the [gpu] case covers GPUs
  TempDir dir;
  Recorder recorder(recorder_options(dir / "run.db", "cupti_collector_test"));
  parity::test::expect_error([&] { CuptiCollector collector(recorder); }, "failed", {"CUPTI"});
  // A second attempt is not refused as "already recording".
  CHECK_THROWS_WITH(CuptiCollector(recorder), !Catch::Contains("already recording"));
  { Scope step(recorder, intern("step"), Category::kStep, 0); }
}

TEST_CASE("kernels, copies, a graph launch and API calls are traced and attributed", "[gpu]") {
  if (skip_without_gpu()) return;
  TempDir dir;
  constexpr int kKernels = 20, kGraphKernels = 3;
  GpuTraceCounts counts;
  {
    Recorder recorder(recorder_options(dir / "run.db", "cupti_collector_test"));
    GpuWork work(1 << 20);
    work.graph_of_kernels(kGraphKernels);  // warm-up: module load, graph instantiation
    work.synchronize();
    CuptiCollector collector(recorder);
    collector.start();
    {
      Scope step(recorder, intern("step"), Category::kStep, 1);
      Scope phase(recorder, intern("forward"), Category::kPhase);
      {
        Scope layer(recorder, intern("input"), Category::kLayer);
        work.upload();
        work.clear();
      }
      for (int i = 0; i < kKernels; ++i) {
        Scope layer(recorder, intern("scale" + std::to_string(i)), Category::kLayer);
        work.scale(1.0f);
      }
      {
        Scope layer(recorder, intern("graph"), Category::kLayer);
        work.graph_of_kernels(kGraphKernels);
      }
      Scope layer(recorder, intern("output"), Category::kLayer);
      work.download_first();
    }
    collector.stop();
    // Outside the window nothing is recorded.
    work.scale(1.0f);
    work.synchronize();
    counts = collector.counts();
  }
  CHECK(counts.kernels == kKernels + kGraphKernels);
  CHECK(counts.graph_kernels == kGraphKernels);
  CHECK(counts.memcpys == 2);
  CHECK(counts.memsets == 1);
  CHECK(counts.syncs >= 1);
  CHECK(counts.dropped == 0);
  CHECK(counts.incomplete == 0);

  TraceReader trace(dir / "run.db");
  CHECK(trace.meta_value("gpu.kernels") == std::to_string(kKernels + kGraphKernels));
  const GpuAttribution attribution = attribute_gpu_work(trace);
  std::uint64_t kernels = 0;
  std::set<std::int64_t> graph_launches;
  for (const GpuWorkAttribution& work : attribution.work) {
    if (work.kind == GpuActivityKind::kSync) continue;
    INFO(trace.string(work.name));
    CHECK(work.launch_row.has_value());
    CHECK(work.context.layer.has_value());
    CHECK(work.context.phase.has_value());
    if (work.kind != GpuActivityKind::kKernel) continue;
    ++kernels;
    // The runtime call, or the driver call under it, whichever CUPTI correlates.
    const std::string launch = trace.string(work.launch_name);
    if (launch == "cudaGraphLaunch" || launch == "cuGraphLaunch")
      graph_launches.insert(*work.launch_row);
  }
  CHECK(kernels == kKernels + kGraphKernels);
  CHECK(graph_launches.size() == 1);
  // GPU work starts after its launch call began, on the same clock.
  CHECK(sql::query_int(trace.db(),
                       "SELECT count(*) FROM gpu_activity g JOIN api_call a ON "
                       "a.correlation_id = g.correlation_id WHERE g.kind = 1 AND "
                       "g.start_ns < a.start_ns") == 0);
}

TEST_CASE("calls that only read state are left out unless asked for", "[gpu]") {
  if (skip_without_gpu()) return;
  // GpuWork checks every launch with cudaGetLastError, a query call.
  const auto recorded_checks = [](bool query_calls) {
    constexpr int kLaunches = 10;
    TempDir dir;
    {
      Recorder recorder(recorder_options(dir / "run.db", "cupti_collector_test"));
      GpuWork work(1 << 16);
      work.scale(1.0f);  // warm-up: module load
      work.synchronize();
      CuptiCollectorOptions options;
      options.query_calls = query_calls;
      CuptiCollector collector(recorder, options);
      collector.start();
      for (int i = 0; i < kLaunches; ++i) work.scale(1.0f);
      work.synchronize();
      collector.stop();
    }
    TraceReader trace(dir / "run.db");
    CHECK(sql::query_int(trace.db(),
                         "SELECT count(*) FROM api_call a JOIN string s ON s.id = a.name_id "
                         "WHERE s.text = 'cudaLaunchKernel'") == kLaunches);
    const bool listed = trace.meta_value("gpu.api_calls_left_out").value_or("").find("cudaGetLastError") !=
                        std::string::npos;
    CHECK(listed == !query_calls);
    return sql::query_int(trace.db(),
                          "SELECT count(*) FROM api_call a JOIN string s ON s.id = a.name_id "
                          "WHERE s.text = 'cudaGetLastError'");
  };
  CHECK(recorded_checks(false) == 0);
  CHECK(recorded_checks(true) >= 10);  // one check a launch
}
