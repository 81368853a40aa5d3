#include "pinned_buffer.hpp"

#include <cuda_runtime.h>

#include "cuda_check.hpp"

namespace parity::trainer::cuda {

PinnedBuffer::PinnedBuffer(std::size_t bytes) {
  void* memory = nullptr;
  if (bytes > 0) PARITY_CUDA_CHECK(cudaMallocHost(&memory, bytes));
  memory_.reset(memory);
}

void PinnedBuffer::Free::operator()(void* memory) const noexcept {
  // As DeviceBuffer's: at process exit the runtime may be gone, and the memory with it.
  (void)cudaFreeHost(memory);
}

}  // namespace parity::trainer::cuda
