// CudaTensor: float32, float16 or bfloat16 on the GPU (parameters, their
// gradients and everything the loss and optimizer touch are float32; a
// lower precision is for activations). A 4-D tensor [N, C, H, W] is stored NHWC
// (convolution weights [O, I, kh, kw] as O, kh, kw, I: cuDNN's NHWC filter
// format); any other rank is stored row-major. [N, C, 1, 1] in NHWC is the
// same bytes as [N, C], which lets the classifier read the pooled features
// without a copy.
#pragma once

#include <cstddef>
#include <memory>

#include "cuda_context.hpp"
#include "device_buffer.hpp"
#include "parity/trainer/backend/precision.hpp"
#include "parity/trainer/backend/tensor.hpp"

namespace parity::trainer::cuda {

class CudaTensor final : public TensorImpl {
 public:
  CudaTensor(Dims dims, std::shared_ptr<DeviceBuffer> storage, std::size_t offset = 0,
             Precision type = Precision::kFloat32)
      : TensorImpl(std::move(dims)), storage_(std::move(storage)), offset_(offset), type_(type) {}

  Precision type() const { return type_; }
  void* raw() const { return static_cast<std::byte*>(storage_->data()) + offset_; }
  // The values of a float32 tensor; throws for any other type.
  float* data() const;
  std::size_t bytes() const { return count() * element_size(type_); }
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
  Precision type_;
};

inline CudaTensor& cuda_tensor(const Tensor& tensor) { return tensor.impl<CudaTensor>(); }
inline float* data(const Tensor& tensor) { return cuda_tensor(tensor).data(); }
inline void* raw(const Tensor& tensor) { return cuda_tensor(tensor).raw(); }
inline Precision type_of(const Tensor& tensor) { return cuda_tensor(tensor).type(); }

// A new tensor of `dims`, its contents undefined.
Tensor make_tensor(Context& context, const Dims& dims, Precision type = Precision::kFloat32);
// A new tensor of the context's activation precision.
Tensor make_activation(Context& context, const Dims& dims);
// `tensor` itself when it already has `type`, otherwise a converted copy.
Tensor as_type(Context& context, const Tensor& tensor, Precision type);
// `tensor` in the context's activation precision (ops convert their inputs
// and incoming gradients with it: the batch arrives in float32).
Tensor as_activation(Context& context, const Tensor& tensor);
// A new tensor of `dims`, all zero.
Tensor make_zero_tensor(Context& context, const Dims& dims);
// `tensor`'s bytes under other dims of the same element count (and type).
Tensor view_as(const Tensor& tensor, const Dims& dims);
// Value, gradient and momentum of a parameter, all zero.
ParamTensors make_param(Context& context, const Dims& dims);

}  // namespace parity::trainer::cuda
