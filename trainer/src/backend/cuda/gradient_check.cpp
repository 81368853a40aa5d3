#include "gradient_check.hpp"

#include "cuda_check.hpp"
#include "cuda_tensor.hpp"

namespace parity::trainer::cuda {

unsigned long long GradientCheck::count_non_finite(Context& context,
                                                   std::span<ParamTensors* const> params) {
  if (params.empty()) return 0;
  if (!matches(params)) rebuild(context, params);
  auto* device_count = device_count_.as<unsigned long long>();
  PARITY_CUDA_CHECK(cudaMemsetAsync(device_count, 0, sizeof(unsigned long long), context.stream));
  kernels::count_non_finite(device_tensors_.as<kernels::CheckedTensor>(),
                            device_chunks_.as<kernels::TensorChunk>(), std::int64_t(chunks_.size()),
                            device_count, context.stream);
  PARITY_CUDA_CHECK(cudaMemcpyAsync(host_count_.data(), device_count, sizeof(unsigned long long),
                                    cudaMemcpyDeviceToHost, context.stream));
  context.synchronize();
  return *host_count_.as<unsigned long long>();
}

bool GradientCheck::matches(std::span<ParamTensors* const> params) const {
  if (params.size() != tensors_.size()) return false;
  for (std::size_t i = 0; i < params.size(); ++i)
    if (tensors_[i].values != data(params[i]->grad) ||
        tensors_[i].count != params[i]->grad.element_count())
      return false;
  return true;
}

void GradientCheck::rebuild(Context& context, std::span<ParamTensors* const> params) {
  tensors_.clear();
  chunks_.clear();
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Tensor& grad = params[i]->grad;
    tensors_.push_back({data(grad), grad.element_count()});
    kernels::append_chunks(chunks_, std::int32_t(i), grad.element_count());
  }
  device_tensors_ = copy_to_device(
      tensors_.data(), tensors_.size() * sizeof(kernels::CheckedTensor), context.stream);
  device_chunks_ =
      copy_to_device(chunks_.data(), chunks_.size() * sizeof(kernels::TensorChunk), context.stream);
  if (!device_count_.data())
    device_count_ = DeviceBuffer(sizeof(unsigned long long), context.stream);
  if (!host_count_.data()) host_count_ = PinnedBuffer(sizeof(unsigned long long));
}

}  // namespace parity::trainer::cuda
