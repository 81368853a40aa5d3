// DeviceBuffer: GPU memory with one owner (RAII; movable, not copyable).
// Allocation and release are ordered on the backend's compute stream and
// served by the device's memory pool, which keeps freed memory for the next
// request: a training step asks for the same sizes every time, so steady
// state costs no cudaMalloc.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace parity::trainer::cuda {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t bytes, cudaStream_t stream);
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept { take(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }

  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(data_);
  }

 private:
  void release() noexcept;
  void take(DeviceBuffer& other) noexcept {
    data_ = other.data_;
    bytes_ = other.bytes_;
    stream_ = other.stream_;
    other.data_ = nullptr;
    other.bytes_ = 0;
  }

  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  cudaStream_t stream_ = nullptr;
};

// A new buffer holding a copy of `bytes` of host memory, queued on `stream`.
// From pageable memory the copy has read the host data when this returns.
DeviceBuffer copy_to_device(const void* host, std::size_t bytes, cudaStream_t stream);

}  // namespace parity::trainer::cuda
