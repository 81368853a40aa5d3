// CuptiCollector: records GPU kernels (concurrent), memcpy, memset,
// synchronization and CUDA runtime/driver API calls of this process into a
// Recorder's trace, through CUPTI's activity API. Built only with CUDA.
//
// CUPTI's timestamps are pointed at CLOCK_MONOTONIC, the clock the trace is
// kept on, so GPU times need no interpolation. Buffers come from an
// ActivityBufferPool sized from the measured record rate; records CUPTI had
// to drop are counted into the trace's meta table (gpu.dropped_records).
// Outside start()..stop() no activity kind is enabled: a closed capture
// window costs the application nothing.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "parity/profiler/activity_buffer_pool.hpp"
#include "parity/profiler/gpu_trace_assembler.hpp"
#include "parity/profiler/recorder.hpp"

namespace parity::profiler {

struct CuptiCollectorOptions {
  bool api_calls = true;        // runtime and driver API calls
  // Also the calls that only read state and start no GPU work (cudaGetDevice,
  // cudaGetLastError, cuKernelGetName, ...; query_api_calls() lists them):
  // off by default, since they are 64% of a cuDNN training step's calls and
  // most of what recording the calls costs.
  bool query_calls = false;
  bool memory = true;           // memcpy and memset
  bool synchronization = true;  // host waits on events, streams, contexts
  ActivityBufferPoolOptions buffers;
};

// The runtime and driver calls that `query_calls` leaves out, by name.
std::vector<std::string> query_api_calls();

class CuptiCollector {
 public:
  // Registers with CUPTI (one collector per process). Throws parity::Error,
  // with a hint, when CUPTI cannot be used: no driver, profiling restricted
  // to administrators, or another profiler already holding CUPTI.
  CuptiCollector(Recorder& recorder, CuptiCollectorOptions options = {});
  // Stops, then writes the counts into the trace.
  ~CuptiCollector();
  CuptiCollector(const CuptiCollector&) = delete;
  CuptiCollector& operator=(const CuptiCollector&) = delete;

  void start();  // enables the activity kinds
  // Disables all kinds, then delivers every buffered record. CUPTI's flush
  // does not wait for the GPU: synchronize the device first, or records of
  // work still running arrive incomplete (counted, not stored).
  void stop();
  bool running() const { return running_; }

  GpuTraceCounts counts() const;
  ActivityBufferPoolStats buffer_stats() const;

  struct State;  // shared with CUPTI's C callbacks

 private:
  std::unique_ptr<State> state_;
  CuptiCollectorOptions options_;
  bool running_ = false;
};

}  // namespace parity::profiler
