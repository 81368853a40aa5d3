// PinnedBuffer: page-locked host memory with one owner (RAII; movable, not
// copyable). Copies from and to it run truly asynchronously on a stream,
// which pageable memory cannot: the input pipeline stages batches in it and
// the overflow check reads its count back into it.
#pragma once

#include <cstddef>
#include <memory>

namespace parity::trainer::cuda {

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t bytes);

  void* data() const { return memory_.get(); }
  template <class T>
  T* as() const {
    return static_cast<T*>(memory_.get());
  }

 private:
  struct Free {
    void operator()(void* memory) const noexcept;
  };
  std::unique_ptr<void, Free> memory_;
};

}  // namespace parity::trainer::cuda
