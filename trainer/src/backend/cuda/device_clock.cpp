#include "device_clock.hpp"

#include <cmath>

#include "cuda_check.hpp"
#include "parity/profiler/clock.hpp"

namespace parity::trainer::cuda {

DeviceClock::DeviceClock(int device) {
  PARITY_CUDA_CHECK(cudaSetDevice(device));
  PARITY_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  PARITY_CUDA_CHECK(cudaEventCreate(&anchor_event_));
  anchor();
}

DeviceClock::~DeviceClock() {
  (void)cudaEventDestroy(anchor_event_);
  (void)cudaStreamDestroy(stream_);
}

void DeviceClock::anchor() {
  const std::int64_t before = profiler::monotonic_ns();
  PARITY_CUDA_CHECK(cudaEventRecord(anchor_event_, stream_));
  PARITY_CUDA_CHECK(cudaEventSynchronize(anchor_event_));
  const std::int64_t after = profiler::monotonic_ns();
  anchor_ns_ = before + (after - before) / 2;
}

std::int64_t DeviceClock::monotonic_ns(cudaEvent_t event) const {
  float ms = 0;
  PARITY_CUDA_CHECK(cudaEventElapsedTime(&ms, anchor_event_, event));
  return anchor_ns_ + std::llround(double(ms) * 1e6);
}

}  // namespace parity::trainer::cuda
