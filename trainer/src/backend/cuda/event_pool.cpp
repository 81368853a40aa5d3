#include "event_pool.hpp"

#include "cuda_check.hpp"

namespace parity::trainer::cuda {

EventPool::~EventPool() {
  for (cudaEvent_t event : events_) (void)cudaEventDestroy(event);
}

cudaEvent_t EventPool::at(std::size_t i) {
  while (events_.size() <= i) {
    cudaEvent_t event = nullptr;
    PARITY_CUDA_CHECK(cudaEventCreateWithFlags(&event, flags_));
    events_.push_back(event);
  }
  return events_[i];
}

}  // namespace parity::trainer::cuda
