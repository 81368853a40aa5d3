// Convolution on oneDNN: forward (training and inference), backward-data and
// backward-weights, with the weights kept in the forward layout (and mirrored
// in the backward-data layout, see weight_mirror.hpp).
#include <map>
#include <optional>

#include "conv_backward_weights.hpp"
#include "cpu_ops.hpp"
#include "parity/core/error.hpp"
#include "weight_mirror.hpp"

namespace parity::trainer::cpu {
namespace {

using dnnl::memory;
using prop = dnnl::prop_kind;

class Conv2dOp final : public LayerOp {
 public:
  Conv2dOp(Context& context, const Conv2dSpec& spec) : context_(context), spec_(spec) {
    if (spec.input.size() != 4 || spec.input[1] != spec.in_channels)
      throw Error("convolution input " + dims_text(spec.input) + " does not have " +
                      std::to_string(spec.in_channels) + " channels in NCHW",
                  "cpu backend");
    const memory::desc any_src = any(spec.input), any_dst = any(output_dims(spec.input));
    fwd_pd_ = dnnl::convolution_forward::primitive_desc(
        dnnl::convolution_forward::desc(prop::forward_training, dnnl::algorithm::convolution_direct,
                                        any_src, any(weight_dims()), any_dst, strides(), pads(),
                                        end_pads()),
        context.engine);
    note_reference_kernel(context, fwd_pd_);
    fwd_ = dnnl::convolution_forward(fwd_pd_);
    weight_ = make_param(context, weight_dims(), fwd_pd_.weights_desc());

    backward_weights_.emplace(context, spec, fwd_pd_);

    if (spec.input_grad) {
      bwd_data_pd_ = dnnl::convolution_backward_data::primitive_desc(
          dnnl::convolution_backward_data::desc(dnnl::algorithm::convolution_direct,
                                                fwd_pd_.src_desc(), any(weight_dims()),
                                                fwd_pd_.dst_desc(), strides(), pads(), end_pads()),
          context.engine, fwd_pd_);
      note_reference_kernel(context, bwd_data_pd_);
      bwd_data_ = dnnl::convolution_backward_data(bwd_data_pd_);
      const memory::desc& wanted = bwd_data_pd_.weights_desc();
      if (wanted != fwd_pd_.weights_desc()) {
        auto mirror = WeightMirror::make(context, fwd_pd_.weights_desc(), wanted);
        if (mirror) {
          cpu_tensor(weight_.value).set_mirror(std::move(mirror));
        } else {
          reordered_weights_ = make_tensor(context, weight_dims(), wanted);
        }
      }
    }
  }

  Tensor forward(const Tensor& x, Mode mode) override {
    if (mode == Mode::kTrain) {
      if (x.dims() != spec_.input)
        throw Error("training batch " + dims_text(x.dims()) + " differs from the model's " +
                        dims_text(spec_.input),
                    "cpu backend convolution", "train with drop_last batches of one size");
      saved_input_ = in_layout(context_, x, fwd_pd_.src_desc());
      Tensor y = make_tensor(context_, output_dims(x.dims()), fwd_pd_.dst_desc());
      execute(context_, fwd_,
              {{DNNL_ARG_SRC, mem(saved_input_)}, {DNNL_ARG_WEIGHTS, mem(weight_.value)},
               {DNNL_ARG_DST, mem(y)}});
      return y;
    }
    if (x.dims().size() != 4 || x.dims()[1] != spec_.in_channels)
      throw Error("convolution input " + dims_text(x.dims()) + " does not have " +
                      std::to_string(spec_.in_channels) + " channels in NCHW",
                  "cpu backend");
    auto& plan = inference_plan(x.dims());
    const Tensor input = in_layout(context_, x, plan.pd.src_desc());
    Tensor y = make_tensor(context_, output_dims(x.dims()), plan.pd.dst_desc());
    execute(context_, plan.primitive,
            {{DNNL_ARG_SRC, mem(input)}, {DNNL_ARG_WEIGHTS, mem(weight_.value)},
             {DNNL_ARG_DST, mem(y)}});
    return y;
  }

  Tensor backward(const Tensor& dy) override {
    if (!saved_input_.defined())
      throw Error("convolution backward without a training forward", "cpu backend");
    const Tensor grad_out = in_layout(context_, dy, backward_weights_->diff_dst_desc());
    backward_weights_->run(saved_input_, grad_out, weight_.grad);
    Tensor dx;
    if (spec_.input_grad) {
      // Backward-data reads the output gradient in its own layout, which
      // differs from backward-weights' when oneDNN picks kernels of different
      // ISAs for the two (nChw8c AVX2 and nChw16c AVX-512 for few channels).
      const Tensor grad_out_data = in_layout(context_, dy, bwd_data_pd_.diff_dst_desc());
      dx = make_tensor(context_, spec_.input, bwd_data_pd_.diff_src_desc());
      execute(context_, bwd_data_,
              {{DNNL_ARG_DIFF_DST, mem(grad_out_data)}, {DNNL_ARG_WEIGHTS, backward_weights()},
               {DNNL_ARG_DIFF_SRC, mem(dx)}});
    }
    saved_input_ = Tensor();
    return dx;
  }

  std::vector<ParamSlot> parameters() override {
    return {{"weight", &weight_, weight_dims(), true}};
  }
  std::string_view kind() const override { return "conv2d"; }

 private:
  struct InferencePlan {
    dnnl::convolution_forward::primitive_desc pd;
    dnnl::convolution_forward primitive;
  };

  static memory::desc any(const Dims& dims) {
    return {to_dnnl(dims), memory::data_type::f32, memory::format_tag::any};
  }
  Dims weight_dims() const {
    return {spec_.out_channels, spec_.in_channels, spec_.kernel, spec_.kernel};
  }
  Dims output_dims(const Dims& input) const {
    return {input[0], spec_.out_channels, spec_.output_size(input[2]), spec_.output_size(input[3])};
  }
  memory::dims strides() const { return {spec_.stride, spec_.stride}; }
  memory::dims pads() const { return {spec_.padding, spec_.padding}; }
  memory::dims end_pads() const { return {spec_.end_padding(), spec_.end_padding()}; }

  // The weights in the layout backward-data reads: the mirror, or a reorder
  // when the layouts are not a pair the mirror handles.
  memory& backward_weights() {
    CpuTensor& value = cpu_tensor(weight_.value);
    if (value.desc() == bwd_data_pd_.weights_desc()) return value.memory();
    if (value.mirror()) return value.mirror()->memory();
    reorder(context_, value.memory(), mem(reordered_weights_), ReorderKind::kWeight);
    return mem(reordered_weights_);
  }

  InferencePlan& inference_plan(const Dims& input) {
    auto it = inference_plans_.find(input);
    if (it != inference_plans_.end()) return it->second;
    // The weights stay in their training layout: the inference primitive is
    // made to read them as they are.
    auto pd = dnnl::convolution_forward::primitive_desc(
        dnnl::convolution_forward::desc(prop::forward_inference,
                                        dnnl::algorithm::convolution_direct, any(input),
                                        fwd_pd_.weights_desc(), any(output_dims(input)),
                                        strides(), pads(), end_pads()),
        context_.engine);
    return inference_plans_.emplace(input, InferencePlan{pd, dnnl::convolution_forward(pd)})
        .first->second;
  }

  Context& context_;
  Conv2dSpec spec_;
  dnnl::convolution_forward::primitive_desc fwd_pd_;
  dnnl::convolution_forward fwd_;
  std::optional<ConvBackwardWeights> backward_weights_;
  dnnl::convolution_backward_data::primitive_desc bwd_data_pd_;
  dnnl::convolution_backward_data bwd_data_;
  ParamTensors weight_;
  Tensor reordered_weights_;
  Tensor saved_input_;
  std::map<Dims, InferencePlan> inference_plans_;  // by input dims
};

}  // namespace

std::unique_ptr<LayerOp> make_conv2d(Context& context, const Conv2dSpec& spec) {
  return std::make_unique<Conv2dOp>(context, spec);
}

}  // namespace parity::trainer::cpu
