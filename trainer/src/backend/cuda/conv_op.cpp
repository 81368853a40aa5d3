// Convolution on cuDNN: forward, backward-data and backward-filter with
// algorithms benchmarked once per shape (conv_algorithms.hpp) and the
// context's shared workspace. cuDNN pads symmetrically only; MindSpore's
// pad_mode="same" pads more after than before, so that case pads the input
// explicitly (a zero border) and convolves without padding.
#include <map>
#include <memory>

#include "conv_algorithms.hpp"
#include "cuda_ops.hpp"
#include "cuda_tensor.hpp"
#include "kernels.hpp"
#include "parity/core/error.hpp"

namespace parity::trainer::cuda {
namespace {

constexpr float kOne = 1.0f, kZero = 0.0f;

class Conv2dOp final : public LayerOp {
 public:
  Conv2dOp(Context& context, const Conv2dSpec& spec)
      : context_(context),
        spec_(spec),
        explicit_padding_(spec.end_padding() != spec.padding),
        filter_(spec.out_channels, spec.in_channels, spec.kernel, spec.kernel),
        convolution_(explicit_padding_ ? 0 : spec.padding, spec.stride, context.options.tf32) {
    if (spec.input.size() != 4 || spec.input[1] != spec.in_channels)
      throw Error("convolution input " + dims_text(spec.input) + " does not have " +
                      std::to_string(spec.in_channels) + " channels in NCHW",
                  "cuda backend");
    weight_ = make_param(context, weight_dims());
  }

  Tensor forward(const Tensor& x, Mode mode) override {
    check_nchw(x, spec_.in_channels, "convolution");
    if (mode == Mode::kTrain && x.dims() != spec_.input)
      throw Error("training batch " + dims_text(x.dims()) + " differs from the model's " +
                      dims_text(spec_.input),
                  "cuda backend convolution", "train with drop_last batches of one size");
    const Tensor input = padded(x);
    Plan& plan = plan_for(input.dims());
    Tensor y = make_tensor(context_, plan.output);
    const ConvAlgorithm algorithm =
        forward_algorithm(context_, descriptors(plan), data(input), data(weight_.value), data(y));
    PARITY_CUDNN_CHECK(cudnnConvolutionForward(
        context_.cudnn, &kOne, plan.x.get(), data(input), filter_.get(), data(weight_.value),
        convolution_.get(), static_cast<cudnnConvolutionFwdAlgo_t>(algorithm.algorithm),
        context_.workspace(algorithm.workspace), algorithm.workspace, &kZero, plan.y.get(),
        data(y)));
    if (mode == Mode::kTrain) saved_input_ = input;
    return y;
  }

  Tensor backward(const Tensor& dy) override {
    if (!saved_input_.defined())
      throw Error("convolution backward without a training forward", "cuda backend");
    Plan& plan = plan_for(saved_input_.dims());
    if (dy.dims() != plan.output)
      throw Error("convolution output gradient " + dims_text(dy.dims()) + " is not " +
                      dims_text(plan.output),
                  "cuda backend");
    const ConvDescriptors d = descriptors(plan);
    const ConvAlgorithm filter_algorithm =
        backward_filter_algorithm(context_, d, data(saved_input_), data(dy), data(weight_.grad));
    PARITY_CUDNN_CHECK(cudnnConvolutionBackwardFilter(
        context_.cudnn, &kOne, plan.x.get(), data(saved_input_), plan.y.get(), data(dy),
        convolution_.get(),
        static_cast<cudnnConvolutionBwdFilterAlgo_t>(filter_algorithm.algorithm),
        context_.workspace(filter_algorithm.workspace), filter_algorithm.workspace, &kZero,
        filter_.get(), data(weight_.grad)));
    Tensor dx;
    if (spec_.input_grad) {
      Tensor grad_input = make_tensor(context_, saved_input_.dims());
      const ConvAlgorithm data_algorithm =
          backward_data_algorithm(context_, d, data(weight_.value), data(dy), data(grad_input));
      PARITY_CUDNN_CHECK(cudnnConvolutionBackwardData(
          context_.cudnn, &kOne, filter_.get(), data(weight_.value), plan.y.get(), data(dy),
          convolution_.get(), static_cast<cudnnConvolutionBwdDataAlgo_t>(data_algorithm.algorithm),
          context_.workspace(data_algorithm.workspace), data_algorithm.workspace, &kZero,
          plan.x.get(), data(grad_input)));
      dx = cropped(grad_input);
    }
    saved_input_ = Tensor();
    return dx;
  }

  std::vector<ParamSlot> parameters() override {
    return {{"weight", &weight_, weight_dims(), true}};
  }
  std::string_view kind() const override { return "conv2d"; }

 private:
  // Descriptors of one input shape (the training batch, or an evaluation batch).
  struct Plan {
    Plan(const Dims& in, const Dims& out)
        : x(in[0], in[1], in[2], in[3]), y(out[0], out[1], out[2], out[3]), output(out) {}
    TensorDescriptor x, y;
    Dims output;
    std::string key;
  };

  Dims weight_dims() const {
    return {spec_.out_channels, spec_.in_channels, spec_.kernel, spec_.kernel};
  }

  Plan& plan_for(const Dims& input) {
    auto it = plans_.find(input);
    if (it != plans_.end()) return *it->second;
    // `input` is already padded when the padding is explicit.
    const std::int64_t pad = explicit_padding_ ? 0 : spec_.padding;
    const auto out_size = [&](std::int64_t size) {
      return (size + 2 * pad - spec_.kernel) / spec_.stride + 1;
    };
    const Dims output{input[0], spec_.out_channels, out_size(input[2]), out_size(input[3])};
    auto plan = std::make_unique<Plan>(input, output);
    plan->key = dims_text(input) + " * " + dims_text(weight_dims()) + " stride " +
                std::to_string(spec_.stride) + " pad " + std::to_string(pad);
    return *plans_.emplace(input, std::move(plan)).first->second;
  }

  ConvDescriptors descriptors(const Plan& plan) const {
    return {plan.x, filter_, convolution_, plan.y, plan.key};
  }

  Tensor padded(const Tensor& x) {
    if (!explicit_padding_) return x;
    const Dims& d = x.dims();
    const std::int64_t before = spec_.padding, after = spec_.end_padding();
    Tensor out = make_tensor(context_, {d[0], d[1], d[2] + before + after, d[3] + before + after});
    kernels::pad_nhwc(data(x), data(out), d[0], d[2], d[3], d[1], before, after, context_.stream);
    ++context_.stats.activation_reorders;
    return out;
  }

  Tensor cropped(const Tensor& grad_padded) {
    if (!explicit_padding_) return grad_padded;
    const Dims& d = spec_.input;
    Tensor out = make_tensor(context_, d);
    kernels::crop_nhwc(data(grad_padded), data(out), d[0], d[2], d[3], d[1], spec_.padding,
                       spec_.end_padding(), context_.stream);
    ++context_.stats.activation_reorders;
    return out;
  }

  Context& context_;
  Conv2dSpec spec_;
  bool explicit_padding_;
  FilterDescriptor filter_;
  ConvolutionDescriptor convolution_;
  ParamTensors weight_;
  Tensor saved_input_;
  std::map<Dims, std::unique_ptr<Plan>> plans_;  // by (padded) input dims
};

}  // namespace

void check_nchw(const Tensor& x, std::int64_t channels, const char* op) {
  if (x.dims().size() != 4 || x.dims()[1] != channels)
    throw Error(std::string(op) + " input " + dims_text(x.dims()) + " does not have " +
                    std::to_string(channels) + " channels in NCHW",
                "cuda backend");
}

std::unique_ptr<LayerOp> make_conv2d(Context& context, const Conv2dSpec& spec) {
  return std::make_unique<Conv2dOp>(context, spec);
}

}  // namespace parity::trainer::cuda
