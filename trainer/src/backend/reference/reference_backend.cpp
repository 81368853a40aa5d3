// The float64 reference backend: the llm.c idea, a CPU reference for every
// kernel. It exists to produce the exact run R that `parity compare A B
// --reference R` judges two float32 runs by, so that what the float32 runs
// get wrong can be told from float32 rounding (docs/compare.md).
//
// Design, for the next engineer:
// - Every tensor is a std::vector<double> in the plain logical layout (NCHW
//   activations, OIHW convolution weights, [out, in] matrices): no blocked
//   layouts, no reorders, no views. from_host and write widen float32 values
//   (exactly), to_host rounds to float32, to_host_double gives the doubles.
// - Each op is one file of clear loops that follow PyTorch's definition of
//   the op (batch_norm_op.cpp, conv_op.cpp, eltwise_ops.cpp, linear_op.cpp,
//   pool_ops.cpp), including the corner cases where backends differ: max
//   pooling's tie rule and NaN, ReLU passing NaN, BN's unbiased running
//   variance. Nothing is fused beyond what the Backend interface names.
// - The convolutions and the classifier go through one cache-blocked matrix
//   product (gemm.cpp; convolutions by im2col). OpenMP shares out the tiles
//   and the per-channel loops, never one sum: a run gives the same bits with
//   any thread count.
// - The loss is softmax_cross_entropy's in double throughout; the optimizer
//   is the shared SGD formula (sgd_coefficients.hpp) in double.
// - Single process only: contiguous_gradients, the data-parallel hook, has
//   float32 spans to offer and refuses (the config check says so first).
// ResNet-50 at 64x64 px, batch 4, trains a step in about 1.6 s on one
// thread, 5x the oneDNN float32 backend's time (docs/trainer.md).
#include "parity/trainer/backend/reference_backend.hpp"

#include <omp.h>

#include <algorithm>

#include "../shared/sgd_step_coefficients.hpp"
#include "optimizer_kernels.hpp"
#include "parity/core/error.hpp"
#include "reference_ops.hpp"
#include "reference_tensor.hpp"

namespace parity::trainer {
namespace {

using reference::values_of;

class ReferenceBackend final : public Backend {
 public:
  explicit ReferenceBackend(const ReferenceBackendOptions& options) {
    omp_set_num_threads(options.threads > 0 ? options.threads : omp_get_num_procs());
  }

  std::string_view name() const override { return "reference"; }
  std::string describe() const override {
    return "float64 reference kernels (plain C++), " + std::to_string(omp_get_max_threads()) +
           " OpenMP threads";
  }

  std::unique_ptr<LayerOp> conv2d(const Conv2dSpec& spec) override {
    return reference::make_conv2d(spec);
  }
  std::unique_ptr<LayerOp> batch_norm(const BatchNormSpec& spec) override {
    return reference::make_batch_norm(spec);
  }
  std::unique_ptr<LayerOp> relu() override { return reference::make_relu(); }
  std::unique_ptr<LayerOp> max_pool(const PoolSpec& spec) override {
    return reference::make_max_pool(spec);
  }
  std::unique_ptr<LayerOp> global_avg_pool() override {
    return reference::make_global_avg_pool();
  }
  std::unique_ptr<LayerOp> linear(const LinearSpec& spec) override {
    return reference::make_linear(spec);
  }
  std::unique_ptr<ResidualOp> residual_add_relu() override {
    return reference::make_residual_add_relu();
  }

  Tensor from_host(const Dims& dims, std::span<const float> values) override {
    check_count(dims, values.size());
    Tensor tensor = reference::make_tensor(dims);
    std::copy(values.begin(), values.end(), values_of(tensor).begin());
    return tensor;
  }

  std::vector<float> to_host(const Tensor& tensor) override {
    std::vector<float> values(static_cast<std::size_t>(tensor.element_count()));
    copy_to_host(tensor, values);
    return values;
  }

  void copy_to_host(const Tensor& tensor, std::span<float> values) override {
    check_count(tensor.dims(), values.size());
    const std::span<const double> source = values_of(tensor);
    std::transform(source.begin(), source.end(), values.begin(),
                   [](double v) { return static_cast<float>(v); });
  }

  std::vector<double> to_host_double(const Tensor& tensor) override {
    const std::span<const double> source = values_of(tensor);
    return {source.begin(), source.end()};
  }

  void write(const Tensor& tensor, std::span<const float> values) override {
    check_count(tensor.dims(), values.size());
    std::copy(values.begin(), values.end(), values_of(tensor).begin());
  }

  void fill(const Tensor& tensor, float value) override {
    const std::span<double> target = values_of(tensor);
    std::fill(target.begin(), target.end(), double(value));
  }

  Tensor add(const Tensor& a, const Tensor& b) override { return reference::sum_of(a, b); }

  void sgd_update(ParamTensors& param, const SgdStep& step) override {
    const std::span<double> value = values_of(param.value);
    const std::span<double> grad = values_of(param.grad), momentum = values_of(param.momentum);
    if (grad.size() != value.size() || momentum.size() != value.size())
      throw Error("a parameter's value, gradient and momentum differ in size",
                  "float64 reference backend");
    reference::sgd_update(value, grad, momentum, sgd_coefficients<double>(step));
  }

  bool gradients_finite(std::span<ParamTensors* const> params) override {
    return std::all_of(params.begin(), params.end(), [](const ParamTensors* p) {
      return reference::all_finite(values_of(p->grad));
    });
  }

  BackendLoss cross_entropy(const Tensor& logits, std::span<const std::int32_t> labels,
                            const LossOptions& options) override {
    const BasicLossResult<double> host =
        softmax_cross_entropy(values_of(logits), labels, logits.dims().at(1), options);
    Tensor grad = reference::make_tensor(logits.dims());
    std::copy(host.grad_logits.begin(), host.grad_logits.end(), values_of(grad).begin());
    return {host.loss, host.correct, grad};
  }

  std::vector<std::span<float>> contiguous_gradients(
      std::span<ParamTensors* const> /*params*/) override {
    throw Error("the float64 reference backend keeps float64 gradients and has no float32 "
                "buckets to reduce across ranks",
                "float64 reference backend", "train with precision: float64 in one process");
  }

  BackendStats stats() const override { return {}; }

 private:
  static void check_count(const Dims& dims, std::size_t count) {
    if (static_cast<std::int64_t>(count) != element_count(dims))
      throw Error(std::to_string(count) + " values for a tensor of " + dims_text(dims),
                  "float64 reference backend");
  }
};

}  // namespace

std::unique_ptr<Backend> make_reference_backend(const ReferenceBackendOptions& options) {
  return std::make_unique<ReferenceBackend>(options);
}

}  // namespace parity::trainer
