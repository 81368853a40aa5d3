#include "sgd_table.hpp"

#include "../shared/sgd_step_coefficients.hpp"
#include "cuda_tensor.hpp"
#include "parity/core/error.hpp"

namespace parity::trainer::cuda {
namespace {

bool same_except_decay(const SgdStep& a, const SgdStep& b) {
  return a.lr == b.lr && a.momentum == b.momentum && a.dampening == b.dampening &&
         a.loss_scale == b.loss_scale && a.nesterov == b.nesterov && a.first == b.first;
}

}  // namespace

void SgdTable::update(Context& context, std::span<ParamTensors* const> params,
                      std::span<const SgdStep> steps) {
  if (params.size() != steps.size())
    throw Error(std::to_string(steps.size()) + " SGD steps for " + std::to_string(params.size()) +
                    " parameters",
                "cuda backend");
  if (params.empty()) return;
  for (const SgdStep& step : steps)
    if (!same_except_decay(step, steps[0]))
      throw Error("one SGD update with different learning rates or momenta", "cuda backend",
                  "update the parameter groups one call each");
  if (!matches(params, steps)) rebuild(context, params, steps);
  kernels::sgd_multi_tensor(device_tensors_.as<kernels::SgdTensor>(),
                            device_chunks_.as<kernels::TensorChunk>(), std::int64_t(chunks_.size()),
                            sgd_coefficients(steps[0]), context.stream);
}

bool SgdTable::matches(std::span<ParamTensors* const> params,
                       std::span<const SgdStep> steps) const {
  if (params.size() != tensors_.size()) return false;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const kernels::SgdTensor& row = tensors_[i];
    // Counts too: the memory pool hands a later model of other shapes the same addresses.
    if (row.w != data(params[i]->value) || row.grad != data(params[i]->grad) ||
        row.buf != data(params[i]->momentum) || row.count != params[i]->value.element_count() ||
        row.weight_decay != float(steps[i].weight_decay))
      return false;
  }
  return true;
}

void SgdTable::rebuild(Context& context, std::span<ParamTensors* const> params,
                       std::span<const SgdStep> steps) {
  tensors_.clear();
  chunks_.clear();
  for (std::size_t i = 0; i < params.size(); ++i) {
    const ParamTensors& p = *params[i];
    if (p.grad.dims() != p.value.dims() || p.momentum.dims() != p.value.dims())
      throw Error("a parameter's value, gradient and momentum differ in shape", "cuda backend");
    const std::int64_t count = p.value.element_count();
    tensors_.push_back(
        {data(p.value), data(p.grad), data(p.momentum), count, float(steps[i].weight_decay)});
    kernels::append_chunks(chunks_, std::int32_t(i), count);
  }
  device_tensors_ =
      copy_to_device(tensors_.data(), tensors_.size() * sizeof(kernels::SgdTensor), context.stream);
  device_chunks_ =
      copy_to_device(chunks_.data(), chunks_.size() * sizeof(kernels::TensorChunk), context.stream);
}

}  // namespace parity::trainer::cuda
