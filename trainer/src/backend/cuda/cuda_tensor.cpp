#include "cuda_tensor.hpp"

#include "cuda_check.hpp"
#include "parity/core/error.hpp"

namespace parity::trainer::cuda {

Tensor make_tensor(Context& context, const Dims& dims) {
  const auto bytes = std::size_t(element_count(dims)) * sizeof(float);
  return Tensor(
      std::make_shared<CudaTensor>(dims, std::make_shared<DeviceBuffer>(bytes, context.stream)));
}

Tensor make_zero_tensor(Context& context, const Dims& dims) {
  Tensor tensor = make_tensor(context, dims);
  PARITY_CUDA_CHECK(cudaMemsetAsync(data(tensor), 0, cuda_tensor(tensor).bytes(), context.stream));
  return tensor;
}

Tensor view_as(const Tensor& tensor, const Dims& dims) {
  if (element_count(dims) != tensor.element_count())
    throw Error("cannot view " + dims_text(tensor.dims()) + " as " + dims_text(dims),
                "cuda backend");
  const CudaTensor& source = cuda_tensor(tensor);
  const auto offset = std::size_t(reinterpret_cast<std::byte*>(source.data()) -
                                  static_cast<std::byte*>(source.storage()->data()));
  return Tensor(std::make_shared<CudaTensor>(dims, source.storage(), offset));
}

ParamTensors make_param(Context& context, const Dims& dims) {
  return {make_zero_tensor(context, dims), make_zero_tensor(context, dims),
          make_zero_tensor(context, dims)};
}

}  // namespace parity::trainer::cuda
