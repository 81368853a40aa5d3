// Convolution on cuDNN: forward, backward-data and backward-filter with
// algorithms benchmarked once per shape (conv_algorithms.hpp) and the
// context's shared workspace. cuDNN pads symmetrically only; MindSpore's
// pad_mode="same" pads more after than before, so that case pads the input
// explicitly (a zero border) and convolves without padding. In float16 and
// bfloat16 the op convolves a copy of its float32 master weight rounded at
// every forward (what autocast does), and rounds the 16-bit weight gradient
// up into the float32 one.
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
        type_(context.options.precision),
        filter_(spec.out_channels, spec.in_channels, spec.kernel, spec.kernel, type_),
        convolution_(explicit_padding_ ? 0 : spec.padding, spec.stride, type_,
                     context.options.tf32) {
    if (spec.input.size() != 4 || spec.input[1] != spec.in_channels)
      throw Error("convolution input " + dims_text(spec.input) + " does not have " +
                      std::to_string(spec.in_channels) + " channels in NCHW",
                  "cuda backend");
    weight_ = make_param(context, weight_dims());
    if (type_ != Precision::kFloat32) rounded_weight_ = make_tensor(context, weight_dims(), type_);
  }

  Tensor forward(const Tensor& x, Mode mode) override {
    check_nchw(x, spec_.in_channels, "convolution");
    if (mode == Mode::kTrain && x.dims() != spec_.input)
      throw Error("training batch " + dims_text(x.dims()) + " differs from the model's " +
                      dims_text(spec_.input),
                  "cuda backend convolution", "train with drop_last batches of one size");
    const Tensor input = padded(as_activation(context_, x));
    Plan& plan = plan_for(input.dims());
    Tensor y = make_activation(context_, plan.output);
    const void* w = rounded_weight();
    const ConvAlgorithm algorithm =
        forward_algorithm(context_, descriptors(plan), raw(input), w, raw(y));
    convolution_.set_math(algorithm.math);
    PARITY_CUDNN_CHECK(cudnnConvolutionForward(
        context_.cudnn, &kOne, plan.x.get(), raw(input), filter_.get(), w, convolution_.get(),
        static_cast<cudnnConvolutionFwdAlgo_t>(algorithm.algorithm),
        context_.workspace(algorithm.workspace), algorithm.workspace, &kZero, plan.y.get(),
        raw(y)));
    if (mode == Mode::kTrain) saved_input_ = input;
    return y;
  }

  Tensor backward(const Tensor& incoming) override {
    if (!saved_input_.defined())
      throw Error("convolution backward without a training forward", "cuda backend");
    Plan& plan = plan_for(saved_input_.dims());
    if (incoming.dims() != plan.output)
      throw Error("convolution output gradient " + dims_text(incoming.dims()) + " is not " +
                      dims_text(plan.output),
                  "cuda backend");
    const Tensor dy = as_activation(context_, incoming);
    const ConvDescriptors d = descriptors(plan);
    // cuDNN writes the weight gradient in the data's type.
    const Tensor grad =
        type_ == Precision::kFloat32 ? weight_.grad : make_tensor(context_, weight_dims(), type_);
    const ConvAlgorithm filter_algorithm =
        backward_filter_algorithm(context_, d, raw(saved_input_), raw(dy), raw(grad));
    convolution_.set_math(filter_algorithm.math);
    PARITY_CUDNN_CHECK(cudnnConvolutionBackwardFilter(
        context_.cudnn, &kOne, plan.x.get(), raw(saved_input_), plan.y.get(), raw(dy),
        convolution_.get(),
        static_cast<cudnnConvolutionBwdFilterAlgo_t>(filter_algorithm.algorithm),
        context_.workspace(filter_algorithm.workspace), filter_algorithm.workspace, &kZero,
        filter_.get(), raw(grad)));
    if (type_ != Precision::kFloat32)
      kernels::convert(type_, raw(grad), Precision::kFloat32, raw(weight_.grad),
                       grad.element_count(), context_.stream);
    Tensor dx;
    if (spec_.input_grad) {
      // The forward's rounded weight: no update comes between forward and backward.
      const void* w = type_ == Precision::kFloat32 ? raw(weight_.value) : raw(rounded_weight_);
      Tensor grad_input = make_activation(context_, saved_input_.dims());
      const ConvAlgorithm data_algorithm =
          backward_data_algorithm(context_, d, w, raw(dy), raw(grad_input));
      convolution_.set_math(data_algorithm.math);
      PARITY_CUDNN_CHECK(cudnnConvolutionBackwardData(
          context_.cudnn, &kOne, filter_.get(), w, plan.y.get(), raw(dy), convolution_.get(),
          static_cast<cudnnConvolutionBwdDataAlgo_t>(data_algorithm.algorithm),
          context_.workspace(data_algorithm.workspace), data_algorithm.workspace, &kZero,
          plan.x.get(), raw(grad_input)));
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
    Plan(const Dims& in, const Dims& out, Precision type)
        : x(in[0], in[1], in[2], in[3], type),
          y(out[0], out[1], out[2], out[3], type),
          output(out) {}
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
    auto plan = std::make_unique<Plan>(input, output, type_);
    plan->key = std::string(precision_name(type_)) + " " + dims_text(input) + " * " +
                dims_text(weight_dims()) + " stride " + std::to_string(spec_.stride) + " pad " +
                std::to_string(pad);
    return *plans_.emplace(input, std::move(plan)).first->second;
  }

  // The weight the convolution reads: the float32 master, or its rounded copy.
  const void* rounded_weight() {
    if (type_ == Precision::kFloat32) return raw(weight_.value);
    kernels::convert(Precision::kFloat32, raw(weight_.value), type_, raw(rounded_weight_),
                     rounded_weight_.element_count(), context_.stream);
    return raw(rounded_weight_);
  }

  ConvDescriptors descriptors(const Plan& plan) const {
    return {plan.x, filter_, convolution_, plan.y, plan.key};
  }

  Tensor padded(const Tensor& x) {
    if (!explicit_padding_) return x;
    const Dims& d = x.dims();
    const std::int64_t before = spec_.padding, after = spec_.end_padding();
    Tensor out =
        make_activation(context_, {d[0], d[1], d[2] + before + after, d[3] + before + after});
    kernels::pad_nhwc(type_, raw(x), raw(out), {d[0], d[2], d[3], d[1], before, after},
                      context_.stream);
    ++context_.stats.activation_reorders;
    return out;
  }

  Tensor cropped(const Tensor& grad_padded) {
    if (!explicit_padding_) return grad_padded;
    const Dims& d = spec_.input;
    Tensor out = make_activation(context_, d);
    kernels::crop_nhwc(type_, raw(grad_padded), raw(out),
                       {d[0], d[2], d[3], d[1], spec_.padding, spec_.end_padding()},
                       context_.stream);
    ++context_.stats.activation_reorders;
    return out;
  }

  Context& context_;
  Conv2dSpec spec_;
  bool explicit_padding_;
  Precision type_;  // of the activations and the convolution
  FilterDescriptor filter_;
  ConvolutionDescriptor convolution_;
  ParamTensors weight_;
  Tensor rounded_weight_;  // float16 / bfloat16: the weight the last forward convolved
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
