// DeviceClock: maps the times of CUDA events onto CLOCK_MONOTONIC, the
// trace's clock. anchor() records an event on an idle stream of its own and
// waits for it: the device passed it between the host's readings before and
// after (a few microseconds apart), and the midpoint is taken. Event times
// are then the anchor plus cudaEventElapsedTime (about 0.5 us resolution, in
// float milliseconds): re-anchor at least every few seconds so that neither
// float rounding nor the two clocks' drift grows.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace parity::trainer::cuda {

class DeviceClock {
 public:
  explicit DeviceClock(int device);
  ~DeviceClock();
  DeviceClock(const DeviceClock&) = delete;
  DeviceClock& operator=(const DeviceClock&) = delete;

  void anchor();
  // A completed, timed event's time on CLOCK_MONOTONIC (ns).
  std::int64_t monotonic_ns(cudaEvent_t event) const;

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t anchor_event_ = nullptr;
  std::int64_t anchor_ns_ = 0;
};

}  // namespace parity::trainer::cuda
