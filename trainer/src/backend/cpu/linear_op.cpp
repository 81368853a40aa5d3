// Fully connected layer (torchvision's Linear) on oneDNN's inner product.
// Its input is the global average pool's [N, C, 1, 1] output; in the layouts
// oneDNN gives that (nchw, nChw8c or nChw16c with C a multiple of the block)
// those bytes are exactly a plain [N, C] matrix, so the op reads them as one
// without a reorder.
#include <map>

#include "cpu_ops.hpp"
#include "parity/core/error.hpp"

namespace parity::trainer::cpu {
namespace {

using dnnl::memory;
using tag = memory::format_tag;

// True when `desc` of [N, C, 1, 1] stores the same bytes as plain [N, C].
bool is_flat_matrix(const memory::desc& desc, const Dims& dims) {
  if (dims.size() != 4 || dims[2] != 1 || dims[3] != 1) return false;
  const memory::dims d = to_dnnl(dims);
  for (const auto& [layout, block] : {std::pair{tag::nchw, 1}, std::pair{tag::nhwc, 1},
                                     std::pair{tag::nChw8c, 8}, std::pair{tag::nChw16c, 16}})
    if (dims[1] % block == 0 && desc == memory::desc(d, memory::data_type::f32, layout)) return true;
  return false;
}

class LinearOp final : public LayerOp {
 public:
  LinearOp(Context& context, const LinearSpec& spec) : context_(context), spec_(spec) {
    const std::int64_t batch = spec.input.at(0);
    fwd_pd_ = dnnl::inner_product_forward::primitive_desc(
        dnnl::inner_product_forward::desc(dnnl::prop_kind::forward_training, matrix(batch),
                                          any(weight_dims()), plain_desc({spec.out_features}),
                                          matrix_out(batch)),
        context.engine);
    fwd_ = dnnl::inner_product_forward(fwd_pd_);
    weight_ = make_param(context, weight_dims(), fwd_pd_.weights_desc());
    bias_ = make_param(context, {spec.out_features}, plain_desc({spec.out_features}));
    bwd_data_ = dnnl::inner_product_backward_data(dnnl::inner_product_backward_data::primitive_desc(
        dnnl::inner_product_backward_data::desc(matrix(batch), fwd_pd_.weights_desc(),
                                                matrix_out(batch)),
        context.engine, fwd_pd_));
    bwd_weights_ =
        dnnl::inner_product_backward_weights(dnnl::inner_product_backward_weights::primitive_desc(
            dnnl::inner_product_backward_weights::desc(matrix(batch), fwd_pd_.weights_desc(),
                                                       plain_desc({spec.out_features}),
                                                       matrix_out(batch)),
            context.engine, fwd_pd_));
  }

  Tensor forward(const Tensor& x, Mode mode) override {
    const std::int64_t batch = x.dims().at(0);
    const Tensor input = flattened(x);
    Tensor y = make_tensor(context_, {batch, spec_.out_features}, matrix_out(batch));
    const std::unordered_map<int, memory> args{{DNNL_ARG_SRC, mem(input)},
                                               {DNNL_ARG_WEIGHTS, mem(weight_.value)},
                                               {DNNL_ARG_BIAS, mem(bias_.value)},
                                               {DNNL_ARG_DST, mem(y)}};
    if (mode == Mode::kTrain) {
      if (batch != spec_.input[0])
        throw Error("training batch of " + std::to_string(batch) + " differs from the model's " +
                        std::to_string(spec_.input[0]),
                    "cpu backend linear");
      execute(context_, fwd_, args);
      saved_input_ = input;
      saved_input_original_ = x;
    } else {
      execute(context_, inference(batch), args);
    }
    return y;
  }

  Tensor backward(const Tensor& dy) override {
    if (!saved_input_.defined()) throw Error("linear backward without a training forward", "cpu backend");
    const std::int64_t batch = spec_.input[0];
    const Tensor grad_out = in_layout(context_, dy, matrix_out(batch));
    execute(context_, bwd_weights_,
            {{DNNL_ARG_SRC, mem(saved_input_)}, {DNNL_ARG_DIFF_DST, mem(grad_out)},
             {DNNL_ARG_DIFF_WEIGHTS, mem(weight_.grad)}, {DNNL_ARG_DIFF_BIAS, mem(bias_.grad)}});
    Tensor dx = make_tensor(context_, {batch, spec_.in_features}, matrix(batch));
    execute(context_, bwd_data_,
            {{DNNL_ARG_DIFF_DST, mem(grad_out)}, {DNNL_ARG_WEIGHTS, mem(weight_.value)},
             {DNNL_ARG_DIFF_SRC, mem(dx)}});
    // Back in the shape and layout the input came in.
    const Tensor original = saved_input_original_;
    saved_input_ = saved_input_original_ = Tensor();
    if (original.dims().size() == 2) return dx;
    // [N, C] row-major is [N, C, 1, 1] in any layout whose channel blocks
    // hold no padding; with padding (8 channels in nChw16c) it is the plain one.
    const dnnl::memory::desc& layout = cpu_tensor(original).desc();
    return view_as(dx, original.dims(),
                   layout.get_size() == cpu_tensor(dx).bytes() ? layout : plain_desc(original.dims()));
  }

  std::string_view kind() const override { return "linear"; }
  std::vector<ParamSlot> parameters() override {
    return {{"weight", &weight_, weight_dims(), true},
            {"bias", &bias_, {spec_.out_features}, false}};
  }

 private:
  Dims weight_dims() const { return {spec_.out_features, spec_.in_features}; }
  memory::desc matrix(std::int64_t batch) const { return plain_desc({batch, spec_.in_features}); }
  memory::desc matrix_out(std::int64_t batch) const {
    return plain_desc({batch, spec_.out_features});
  }
  static memory::desc any(const Dims& dims) {
    return {to_dnnl(dims), memory::data_type::f32, tag::any};
  }

  Tensor flattened(const Tensor& x) {
    const Dims& d = x.dims();
    if (d.size() == 2 && d[1] == spec_.in_features) return in_layout(context_, x, matrix(d[0]));
    if (d.size() != 4 || d[1] != spec_.in_features || d[2] != 1 || d[3] != 1)
      throw Error("linear input " + dims_text(d) + " is not [N, " +
                      std::to_string(spec_.in_features) + "] or [N, " +
                      std::to_string(spec_.in_features) + ", 1, 1]",
                  "cpu backend");
    const Tensor flat_bytes = is_flat_matrix(cpu_tensor(x).desc(), d)
                                  ? x
                                  : in_layout(context_, x, plain_desc(d));
    return view_as(flat_bytes, {d[0], d[1]}, matrix(d[0]));
  }

  dnnl::inner_product_forward& inference(std::int64_t batch) {
    auto it = inference_.find(batch);
    if (it != inference_.end()) return it->second;
    auto pd = dnnl::inner_product_forward::primitive_desc(
        dnnl::inner_product_forward::desc(dnnl::prop_kind::forward_inference, matrix(batch),
                                          fwd_pd_.weights_desc(), plain_desc({spec_.out_features}),
                                          matrix_out(batch)),
        context_.engine);
    return inference_.emplace(batch, dnnl::inner_product_forward(pd)).first->second;
  }

  Context& context_;
  LinearSpec spec_;
  dnnl::inner_product_forward::primitive_desc fwd_pd_;
  dnnl::inner_product_forward fwd_;
  dnnl::inner_product_backward_data bwd_data_;
  dnnl::inner_product_backward_weights bwd_weights_;
  ParamTensors weight_, bias_;
  Tensor saved_input_, saved_input_original_;
  std::map<std::int64_t, dnnl::inner_product_forward> inference_;
};

}  // namespace

std::unique_ptr<LayerOp> make_linear(Context& context, const LinearSpec& spec) {
  return std::make_unique<LinearOp>(context, spec);
}

}  // namespace parity::trainer::cpu
