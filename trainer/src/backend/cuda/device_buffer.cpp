#include "device_buffer.hpp"

#include "cuda_check.hpp"

namespace parity::trainer::cuda {

DeviceBuffer::DeviceBuffer(std::size_t bytes, cudaStream_t stream)
    : bytes_(bytes), stream_(stream) {
  if (bytes > 0) PARITY_CUDA_CHECK(cudaMallocAsync(&data_, bytes, stream));
}

DeviceBuffer copy_to_device(const void* host, std::size_t bytes, cudaStream_t stream) {
  DeviceBuffer buffer(bytes, stream);
  if (bytes > 0)
    PARITY_CUDA_CHECK(cudaMemcpyAsync(buffer.data(), host, bytes, cudaMemcpyHostToDevice, stream));
  return buffer;
}

void DeviceBuffer::release() noexcept {
  // A destructor cannot report; the one failure expected here is the CUDA
  // runtime already unloaded at process exit, when the memory is gone anyway.
  if (data_) (void)cudaFreeAsync(data_, stream_);
  data_ = nullptr;
  bytes_ = 0;
}

}  // namespace parity::trainer::cuda
