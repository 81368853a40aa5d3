// CudaTensor: float32 on the GPU. A 4-D tensor [N, C, H, W] is stored NHWC
// (convolution weights [O, I, kh, kw] as O, kh, kw, I: cuDNN's NHWC filter
// format); any other rank is stored row-major. [N, C, 1, 1] in NHWC is the
// same bytes as [N, C], which lets the classifier read the pooled features
// without a copy.
#pragma once

#include <cstddef>
#include <memory>

#include "cuda_context.hpp"
#include "device_buffer.hpp"
#include "parity/trainer/backend/tensor.hpp"

namespace parity::trainer::cuda {

class CudaTensor final : public TensorImpl {
 public:
  CudaTensor(Dims dims, std::shared_ptr<DeviceBuffer> storage, std::size_t offset = 0)
      : TensorImpl(std::move(dims)), storage_(std::move(storage)), offset_(offset) {}

  float* data() const {
    return reinterpret_cast<float*>(static_cast<std::byte*>(storage_->data()) + offset_);
  }
  std::size_t bytes() const { return std::size_t(element_count(dims())) * sizeof(float); }
  std::size_t count() const { return std::size_t(element_count(dims())); }
  const std::shared_ptr<DeviceBuffer>& storage() const { return storage_; }
  // Moves the tensor into part of a larger buffer (the gradient arena); the
  // caller has copied the values there.
  void move_to(std::shared_ptr<DeviceBuffer> storage, std::size_t offset) {
    storage_ = std::move(storage);
    offset_ = offset;
  }

 private:
  std::shared_ptr<DeviceBuffer> storage_;
  std::size_t offset_;
};

inline CudaTensor& cuda_tensor(const Tensor& tensor) { return tensor.impl<CudaTensor>(); }
inline float* data(const Tensor& tensor) { return cuda_tensor(tensor).data(); }

// A new tensor of `dims`, its contents undefined.
Tensor make_tensor(Context& context, const Dims& dims);
// A new tensor of `dims`, all zero.
Tensor make_zero_tensor(Context& context, const Dims& dims);
// `tensor`'s bytes under other dims of the same element count.
Tensor view_as(const Tensor& tensor, const Dims& dims);
// Value, gradient and momentum of a parameter, all zero.
ParamTensors make_param(Context& context, const Dims& dims);

}  // namespace parity::trainer::cuda
