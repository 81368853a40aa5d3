// Batch normalization on cuDNN's extended batch-norm calls (NHWC; spatial
// mode for float32, the persistent kernels for float16 and bfloat16, which
// PyTorch also picks for channels_last). cuDNN updates the running
// statistics itself, with PyTorch's rule: the running variance takes the
// unbiased batch variance. The data may be float16 or bfloat16; scale, bias
// and statistics stay float32 (cuDNN derives their descriptor so).
//
// The fused ReLU is cuDNN's own (CUDNN_BATCHNORM_OPS_BN_ACTIVATION, one pass,
// its mask in the reserve space) where cuDNN documents it: float16 NHWC with
// the channels a multiple of 4. Otherwise, and in evaluation, it is our
// kernel on the output, and on the incoming gradient before the backward.
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

class ActivationDescriptor
    : public CudnnDescriptor<cudnnActivationDescriptor_t, cudnnCreateActivationDescriptor,
                             cudnnDestroyActivationDescriptor> {
 public:
  // ReLU that passes NaN on, as our kernels do (NaN localisation sees where it began).
  ActivationDescriptor() {
    PARITY_CUDNN_CHECK(
        cudnnSetActivationDescriptor(get(), CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0));
  }
};

class BatchNormOp final : public LayerOp {
 public:
  BatchNormOp(Context& context, const BatchNormSpec& spec)
      : context_(context),
        spec_(spec),
        type_(context.options.precision),
        mode_(type_ == Precision::kFloat32 ? CUDNN_BATCHNORM_SPATIAL
                                           : CUDNN_BATCHNORM_SPATIAL_PERSISTENT),
        cudnn_relu_(spec.fused_relu && type_ == Precision::kFloat16 && spec.channels % 4 == 0),
        ops_(cudnn_relu_ ? CUDNN_BATCHNORM_OPS_BN_ACTIVATION : CUDNN_BATCHNORM_OPS_BN) {
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
    if (cudnn_relu_) activation_ = std::make_unique<ActivationDescriptor>();
  }

  Tensor forward(const Tensor& input, Mode mode) override {
    check_nchw(input, spec_.channels, "batch norm");
    const Tensor x = as_activation(context_, input);
    Plan& plan = plan_for(x.dims());
    Tensor y = make_activation(context_, x.dims());
    if (mode == Mode::kEval) {
      PARITY_CUDNN_CHECK(cudnnBatchNormalizationForwardInference(
          context_.cudnn, CUDNN_BATCHNORM_SPATIAL, &kOne, &kZero, plan.x.get(), raw(x),
          plan.x.get(), raw(y), plan.parameters.get(), data(gamma_.value), data(beta_.value),
          data(running_mean_), data(running_var_), spec_.eps));
      if (spec_.fused_relu)
        kernels::relu_forward(type_, raw(y), raw(y), y.element_count(), context_.stream);
      return y;
    }
    reserve_ = DeviceBuffer(plan.reserve, context_.stream);
    PARITY_CUDNN_CHECK(cudnnBatchNormalizationForwardTrainingEx(
        context_.cudnn, mode_, ops_, &kOne, &kZero, plan.x.get(), raw(x), nullptr, nullptr,
        plan.x.get(), raw(y), plan.parameters.get(), data(gamma_.value), data(beta_.value),
        spec_.momentum, data(running_mean_), data(running_var_), spec_.eps, data(saved_mean_),
        data(saved_inv_var_), activation(), context_.workspace(plan.forward_workspace),
        plan.forward_workspace, reserve_.data(), plan.reserve));
    if (spec_.fused_relu && !cudnn_relu_)
      kernels::relu_forward(type_, raw(y), raw(y), y.element_count(), context_.stream);
    saved_input_ = x;
    if (spec_.fused_relu) saved_output_ = y;
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
    if (spec_.fused_relu && !cudnn_relu_) {
      grad_out = make_activation(context_, dy.dims());
      kernels::relu_backward(type_, raw(saved_output_), raw(dy), raw(grad_out), dy.element_count(),
                             context_.stream);
    }
    Tensor dx = make_activation(context_, saved_input_.dims());
    // cuDNN's ReLU backward reads the output and the reserve space's mask.
    PARITY_CUDNN_CHECK(cudnnBatchNormalizationBackwardEx(
        context_.cudnn, mode_, ops_, &kOne, &kZero, &kOne, &kZero, plan.x.get(), raw(saved_input_),
        cudnn_relu_ ? plan.x.get() : nullptr, cudnn_relu_ ? raw(saved_output_) : nullptr,
        plan.x.get(), raw(grad_out), nullptr, nullptr, plan.x.get(), raw(dx), plan.parameters.get(),
        data(gamma_.value), data(beta_.value), data(gamma_.grad), data(beta_.grad), spec_.eps,
        data(saved_mean_), data(saved_inv_var_), activation(),
        context_.workspace(plan.backward_workspace), plan.backward_workspace, reserve_.data(),
        reserve_.bytes()));
    saved_input_ = saved_output_ = Tensor();
    reserve_ = DeviceBuffer();
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
  // Descriptors and cuDNN's buffer sizes for one input shape.
  struct Plan {
    Plan(const BatchNormOp& op, const Dims& d) : x(d[0], d[1], d[2], d[3], op.type_) {
      cudnnHandle_t handle = op.context_.cudnn;
      PARITY_CUDNN_CHECK(cudnnDeriveBNTensorDescriptor(parameters.get(), x.get(), op.mode_));
      PARITY_CUDNN_CHECK(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
          handle, op.mode_, op.ops_, x.get(), nullptr, x.get(), parameters.get(), op.activation(),
          &forward_workspace));
      PARITY_CUDNN_CHECK(cudnnGetBatchNormalizationBackwardExWorkspaceSize(
          handle, op.mode_, op.ops_, x.get(), op.cudnn_relu_ ? x.get() : nullptr, x.get(), nullptr,
          x.get(), parameters.get(), op.activation(), &backward_workspace));
      PARITY_CUDNN_CHECK(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(
          handle, op.mode_, op.ops_, op.activation(), x.get(), &reserve));
    }
    TensorDescriptor x;
    CudnnDescriptor<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor,
                    cudnnDestroyTensorDescriptor>
        parameters;  // [1, C, 1, 1] float: scale, bias, mean, variance
    std::size_t forward_workspace = 0, backward_workspace = 0, reserve = 0;
  };

  cudnnActivationDescriptor_t activation() const {
    return activation_ ? activation_->get() : nullptr;
  }

  Plan& plan_for(const Dims& dims) {
    auto it = plans_.find(dims);
    if (it == plans_.end()) it = plans_.emplace(dims, std::make_unique<Plan>(*this, dims)).first;
    return *it->second;
  }

  Context& context_;
  BatchNormSpec spec_;
  Precision type_;  // of the data
  cudnnBatchNormMode_t mode_;
  bool cudnn_relu_;  // the ReLU runs inside cuDNN's batch norm
  cudnnBatchNormOps_t ops_;
  std::unique_ptr<ActivationDescriptor> activation_;  // with cudnn_relu_ only
  ParamTensors gamma_, beta_;
  Tensor running_mean_, running_var_, saved_mean_, saved_inv_var_;
  Tensor saved_input_, saved_output_;
  DeviceBuffer reserve_;  // from a training forward to its backward
  std::map<Dims, std::unique_ptr<Plan>> plans_;
};

}  // namespace

std::unique_ptr<LayerOp> make_batch_norm(Context& context, const BatchNormSpec& spec) {
  return std::make_unique<BatchNormOp>(context, spec);
}

}  // namespace parity::trainer::cuda
