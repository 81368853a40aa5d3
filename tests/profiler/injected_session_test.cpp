// The session that `parity record`'s injection library runs inside a
// recorded program, here in the test's own process: without a GPU the trace
// says why nothing was recorded and the program goes on; on a GPU
// ([gpu]) the whole run's kernels are recorded, or with the cudaProfilerApi
// capture range only those launched between cudaProfilerStart and Stop.
#include "injected_session.hpp"

#include <cuda_profiler_api.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <iostream>

#include "gpu_work.hpp"
#include "log_capture.hpp"
#include "parity/profiler/sqlite.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "temp_dir.hpp"

using namespace parity::profiler;
using parity::test::GpuWork;

namespace {

RecordRequest request_for(const std::filesystem::path& output, CaptureRange capture) {
  RecordRequest request;
  request.output = output;
  request.capture = capture;
  request.command_line = "injected_session_test";
  request.launched_pid = getpid();  // this process writes the output itself
  return request;
}

bool skip_without_gpu() {
  const std::string reason = parity::test::gpu_unavailable_reason();
  if (reason.empty()) return false;
  std::cout << "SKIPPED: " << reason << "\n";
  return true;
}

std::int64_t kernels_named_scale(TraceReader& trace) {
  return sql::query_int(trace.db(),
                        "SELECT count(*) FROM gpu_activity g JOIN string s ON s.id = g.name_id "
                        "WHERE g.kind = 1 AND s.text LIKE '%scale_kernel%'");
}

}  // namespace

TEST_CASE("without a GPU the injected session says why nothing was recorded", "[unit]") {
  if (parity::test::gpu_unavailable_reason().empty()) return;  // the [gpu] cases cover GPUs
  TempDir dir;
  ScopedLogCapture log;
  { inject::InjectedSession session(request_for(dir / "run.db", CaptureRange::kWhole)); }
  // One warning tells the user the program runs unrecorded.
  REQUIRE(log.messages().size() == 1);
  CHECK_THAT(log.messages().front(), Catch::Contains("the program runs unrecorded"));
  TraceReader trace(dir / "run.db");
  CHECK(trace.meta_value("complete") == "1");
  CHECK_THAT(trace.meta_value("record.gpu").value_or(""),
             Catch::StartsWith("not recorded: no CUDA device or driver usable"));
  CHECK(trace.meta_value("record.capture_range") == "whole");
  CHECK(trace.meta_value("command_line") == "injected_session_test");
}

TEST_CASE("an injected session records a whole run's kernels", "[gpu]") {
  if (skip_without_gpu()) return;
  TempDir dir;
  constexpr int kKernels = 12;
  {
    inject::InjectedSession session(request_for(dir / "run.db", CaptureRange::kWhole));
    GpuWork work(1 << 16);
    for (int i = 0; i < kKernels; ++i) work.scale(1.0f);
    work.synchronize();
  }
  TraceReader trace(dir / "run.db");
  CHECK(trace.meta_value("record.gpu") == "recorded");
  CHECK(trace.meta_value("complete") == "1");
  CHECK(kernels_named_scale(trace) == kKernels);
}

TEST_CASE("the cudaProfilerApi capture range records only between start and stop", "[gpu]") {
  if (skip_without_gpu()) return;
  TempDir dir;
  {
    inject::InjectedSession session(request_for(dir / "run.db", CaptureRange::kCudaProfilerApi));
    GpuWork work(1 << 16);
    work.scale(1.0f);  // before the window
    work.synchronize();
    REQUIRE(cudaProfilerStart() == cudaSuccess);
    for (int i = 0; i < 5; ++i) work.scale(1.0f);
    REQUIRE(cudaProfilerStop() == cudaSuccess);
    work.scale(1.0f);  // after it
    work.synchronize();
  }
  TraceReader trace(dir / "run.db");
  CHECK(trace.meta_value("record.capture_range") == "cudaProfilerApi");
  CHECK(kernels_named_scale(trace) == 5);
}
