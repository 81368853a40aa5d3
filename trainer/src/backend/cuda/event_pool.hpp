// EventPool: CUDA events made on first use and reused step after step (a
// step records the same number of them), timed or not.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace parity::trainer::cuda {

class EventPool {
 public:
  explicit EventPool(bool timed) : flags_(timed ? cudaEventDefault : cudaEventDisableTiming) {}
  ~EventPool();
  EventPool(const EventPool&) = delete;
  EventPool& operator=(const EventPool&) = delete;

  // The i-th event, made now if the pool has fewer.
  cudaEvent_t at(std::size_t i);

 private:
  unsigned flags_;
  std::vector<cudaEvent_t> events_;
};

}  // namespace parity::trainer::cuda
