#include "cuda_tensor.hpp"

#include "cuda_check.hpp"
#include "kernels.hpp"
#include "parity/core/error.hpp"

namespace parity::trainer::cuda {

float* CudaTensor::data() const {
  if (type_ != Precision::kFloat32)
    throw Error(std::string("a ") + precision_name(type_) + " tensor " + dims_text(dims()) +
                    " read as float32",
                "cuda backend");
  return static_cast<float*>(raw());
}

Tensor make_tensor(Context& context, const Dims& dims, Precision type) {
  const std::size_t bytes = std::size_t(element_count(dims)) * element_size(type);
  return Tensor(std::make_shared<CudaTensor>(
      dims, std::make_shared<DeviceBuffer>(bytes, context.stream), 0, type));
}

Tensor make_activation(Context& context, const Dims& dims) {
  return make_tensor(context, dims, context.options.precision);
}

Tensor as_type(Context& context, const Tensor& tensor, Precision type) {
  const Precision from = type_of(tensor);
  if (from == type) return tensor;
  Tensor converted = make_tensor(context, tensor.dims(), type);
  kernels::convert(from, raw(tensor), type, raw(converted), tensor.element_count(), context.stream);
  return converted;
}

Tensor as_activation(Context& context, const Tensor& tensor) {
  return as_type(context, tensor, context.options.precision);
}

Tensor make_zero_tensor(Context& context, const Dims& dims) {
  Tensor tensor = make_tensor(context, dims);
  PARITY_CUDA_CHECK(cudaMemsetAsync(raw(tensor), 0, cuda_tensor(tensor).bytes(), context.stream));
  return tensor;
}

Tensor view_as(const Tensor& tensor, const Dims& dims) {
  if (element_count(dims) != tensor.element_count())
    throw Error("cannot view " + dims_text(tensor.dims()) + " as " + dims_text(dims),
                "cuda backend");
  const CudaTensor& source = cuda_tensor(tensor);
  const auto offset = std::size_t(static_cast<std::byte*>(source.raw()) -
                                  static_cast<std::byte*>(source.storage()->data()));
  return Tensor(std::make_shared<CudaTensor>(dims, source.storage(), offset, source.type()));
}

ParamTensors make_param(Context& context, const Dims& dims) {
  return {make_zero_tensor(context, dims), make_zero_tensor(context, dims),
          make_zero_tensor(context, dims)};
}

}  // namespace parity::trainer::cuda
