// Batch normalization on cuDNN (spatial mode, NHWC), optionally followed by
// a ReLU of our own kernels (forward in place on the output, backward on the
// incoming gradient). cuDNN updates the running statistics itself, with
// PyTorch's rule: the running variance takes the unbiased batch variance.
// The data may be float16 or bfloat16; scale, bias and statistics stay
// float32 (cuDNN derives their descriptor so).
#include <map>
#include <memory>

#include "cuda_ops.hpp"
#include "cuda_tensor.hpp"
#include "cudnn_descriptors.hpp"
#include "kernels.hpp"
#include "parity/core/error.hpp"

namespace parity::trainer::cuda {
namespace {

constexpr float kOne = 1.0f, kZero = 0.0f;
constexpr cudnnBatchNormMode_t kMode = CUDNN_BATCHNORM_SPATIAL;

class BatchNormOp final : public LayerOp {
 public:
  BatchNormOp(Context& context, const BatchNormSpec& spec) : context_(context), spec_(spec) {
    if (spec.eps < CUDNN_BN_MIN_EPSILON)
      throw Error("batch norm eps " + std::to_string(spec.eps) + " is below cuDNN's minimum " +
                      std::to_string(CUDNN_BN_MIN_EPSILON),
                  "cuda backend");
    const Dims channels{spec.channels};
    gamma_ = make_param(context, channels);
    beta_ = make_param(context, channels);
    running_mean_ = make_zero_tensor(context, channels);
    running_var_ = make_tensor(context, channels);
    saved_mean_ = make_tensor(context, channels);
    saved_inv_var_ = make_tensor(context, channels);
    kernels::fill(Precision::kFloat32, raw(gamma_.value), spec.channels, 1.0f, context.stream);
    kernels::fill(Precision::kFloat32, raw(running_var_), spec.channels, 1.0f, context.stream);
  }

  Tensor forward(const Tensor& input, Mode mode) override {
    check_nchw(input, spec_.channels, "batch norm");
    const Tensor x = as_activation(context_, input);
    Plan& plan = plan_for(x.dims());
    Tensor y = make_activation(context_, x.dims());
    if (mode == Mode::kEval) {
      PARITY_CUDNN_CHECK(cudnnBatchNormalizationForwardInference(
          context_.cudnn, kMode, &kOne, &kZero, plan.x.get(), raw(x), plan.x.get(), raw(y),
          plan.parameters.get(), data(gamma_.value), data(beta_.value), data(running_mean_),
          data(running_var_), spec_.eps));
    } else {
      PARITY_CUDNN_CHECK(cudnnBatchNormalizationForwardTraining(
          context_.cudnn, kMode, &kOne, &kZero, plan.x.get(), raw(x), plan.x.get(), raw(y),
          plan.parameters.get(), data(gamma_.value), data(beta_.value), spec_.momentum,
          data(running_mean_), data(running_var_), spec_.eps, data(saved_mean_),
          data(saved_inv_var_)));
      saved_input_ = x;
    }
    if (spec_.fused_relu) {
      kernels::relu_forward(type_of(y), raw(y), raw(y), y.element_count(), context_.stream);
      if (mode == Mode::kTrain) saved_output_ = y;
    }
    return y;
  }

  Tensor backward(const Tensor& incoming) override {
    if (!saved_input_.defined())
      throw Error("batch norm backward without a training forward", "cuda backend");
    if (incoming.dims() != saved_input_.dims())
      throw Error("batch norm output gradient " + dims_text(incoming.dims()) + " is not " +
                      dims_text(saved_input_.dims()),
                  "cuda backend");
    const Tensor dy = as_activation(context_, incoming);
    Plan& plan = plan_for(saved_input_.dims());
    Tensor grad_out = dy;
    if (spec_.fused_relu) {
      grad_out = make_activation(context_, dy.dims());
      kernels::relu_backward(type_of(dy), raw(saved_output_), raw(dy), raw(grad_out),
                             dy.element_count(), context_.stream);
    }
    Tensor dx = make_activation(context_, saved_input_.dims());
    PARITY_CUDNN_CHECK(cudnnBatchNormalizationBackward(
        context_.cudnn, kMode, &kOne, &kZero, &kOne, &kZero, plan.x.get(), raw(saved_input_),
        plan.x.get(), raw(grad_out), plan.x.get(), raw(dx), plan.parameters.get(),
        data(gamma_.value), data(gamma_.grad), data(beta_.grad), spec_.eps, data(saved_mean_),
        data(saved_inv_var_)));
    saved_input_ = saved_output_ = Tensor();
    return dx;
  }

  std::string_view kind() const override {
    return spec_.fused_relu ? "batch_norm_relu" : "batch_norm";
  }
  std::vector<ParamSlot> parameters() override {
    return {{"weight", &gamma_, {spec_.channels}, false},
            {"bias", &beta_, {spec_.channels}, false}};
  }
  std::vector<BufferSlot> buffers() override {
    return {{"running_mean", &running_mean_, {spec_.channels}},
            {"running_var", &running_var_, {spec_.channels}}};
  }

 private:
  struct Plan {
    Plan(const Dims& d, Precision type) : x(d[0], d[1], d[2], d[3], type) {
      PARITY_CUDNN_CHECK(cudnnDeriveBNTensorDescriptor(parameters.get(), x.get(), kMode));
    }
    TensorDescriptor x;
    CudnnDescriptor<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor,
                    cudnnDestroyTensorDescriptor>
        parameters;  // [1, C, 1, 1] float: scale, bias, mean, variance
  };

  Plan& plan_for(const Dims& dims) {
    auto it = plans_.find(dims);
    if (it == plans_.end())
      it = plans_.emplace(dims, std::make_unique<Plan>(dims, context_.options.precision)).first;
    return *it->second;
  }

  Context& context_;
  BatchNormSpec spec_;
  ParamTensors gamma_, beta_;
  Tensor running_mean_, running_var_, saved_mean_, saved_inv_var_;
  Tensor saved_input_, saved_output_;
  std::map<Dims, std::unique_ptr<Plan>> plans_;
};

}  // namespace

std::unique_ptr<LayerOp> make_batch_norm(Context& context, const BatchNormSpec& spec) {
  return std::make_unique<BatchNormOp>(context, spec);
}

}  // namespace parity::trainer::cuda
