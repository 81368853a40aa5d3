// Pooling on oneDNN: max pooling (training keeps oneDNN's workspace of argmax
// positions for the backward pass) and global average pooling to [N, C, 1, 1].
#include <deque>
#include <optional>

#include "cpu_ops.hpp"
#include "parity/core/error.hpp"

namespace parity::trainer::cpu {
namespace {

using dnnl::memory;

struct Window {
  std::int64_t kernel_h, kernel_w, stride, padding;
};

class PoolOp final : public LayerOp {
 public:
  PoolOp(Context& context, dnnl::algorithm algorithm, std::optional<Window> window)
      : context_(context), algorithm_(algorithm), window_(window) {}

  std::string_view kind() const override {
    return algorithm_ == dnnl::algorithm::pooling_max ? "max_pool" : "avg_pool";
  }

  Tensor forward(const Tensor& x, Mode mode) override {
    if (x.dims().size() != 4) throw Error("pooling input " + dims_text(x.dims()) + " is not NCHW", "cpu backend");
    Plan& plan = plan_for(x, mode);
    Tensor y = make_tensor(context_, plan.output, plan.forward_pd.dst_desc());
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, mem(x)}, {DNNL_ARG_DST, mem(y)}};
    if (mode == Mode::kTrain) {
      if (algorithm_ == dnnl::algorithm::pooling_max) {
        workspace_ = make_tensor(context_, {}, plan.forward_pd.workspace_desc());
        args[DNNL_ARG_WORKSPACE] = mem(workspace_);
      }
      saved_plan_ = &plan;
      saved_input_dims_ = x.dims();
    }
    execute(context_, plan.forward, args);
    return y;
  }

  Tensor backward(const Tensor& dy) override {
    if (!saved_plan_) throw Error("pooling backward without a training forward", "cpu backend");
    const Tensor grad_out = in_layout(context_, dy, saved_plan_->forward_pd.dst_desc());
    Tensor dx = make_tensor(context_, saved_input_dims_, saved_plan_->forward_pd.src_desc());
    std::unordered_map<int, memory> args{{DNNL_ARG_DIFF_DST, mem(grad_out)},
                                         {DNNL_ARG_DIFF_SRC, mem(dx)}};
    if (algorithm_ == dnnl::algorithm::pooling_max) args[DNNL_ARG_WORKSPACE] = mem(workspace_);
    execute(context_, saved_plan_->backward, args);
    saved_plan_ = nullptr;
    return dx;
  }

 private:
  struct Plan {
    memory::desc layout;
    Mode mode;
    Dims output;
    dnnl::pooling_forward::primitive_desc forward_pd;
    dnnl::pooling_forward forward;
    dnnl::pooling_backward backward;
  };

  Plan& plan_for(const Tensor& x, Mode mode) {
    const memory::desc& layout = cpu_tensor(x).desc();
    for (auto& plan : plans_)
      if (plan.mode == mode && plan.layout == layout) return plan;
    const Dims& in = x.dims();
    const Window w = window_.value_or(Window{in[2], in[3], 1, 0});
    const Dims out{in[0], in[1], (in[2] + 2 * w.padding - w.kernel_h) / w.stride + 1,
                   (in[3] + 2 * w.padding - w.kernel_w) / w.stride + 1};
    const memory::desc dst(to_dnnl(out), memory::data_type::f32, memory::format_tag::any);
    const memory::dims kernel{w.kernel_h, w.kernel_w}, strides{w.stride, w.stride},
        pads{w.padding, w.padding};
    const auto kind = mode == Mode::kTrain ? dnnl::prop_kind::forward_training
                                           : dnnl::prop_kind::forward_inference;
    auto forward_pd = dnnl::pooling_forward::primitive_desc(
        dnnl::pooling_forward::desc(kind, algorithm_, layout, dst, strides, kernel, pads, pads),
        context_.engine);
    dnnl::pooling_backward backward;
    if (mode == Mode::kTrain)
      backward = dnnl::pooling_backward(dnnl::pooling_backward::primitive_desc(
          dnnl::pooling_backward::desc(algorithm_, layout, forward_pd.dst_desc(), strides, kernel,
                                       pads, pads),
          context_.engine, forward_pd));
    plans_.push_back({layout, mode, out, forward_pd, dnnl::pooling_forward(forward_pd), backward});
    return plans_.back();
  }

  Context& context_;
  dnnl::algorithm algorithm_;
  std::optional<Window> window_;  // none: the whole image (global pooling)
  std::deque<Plan> plans_;        // a deque: saved_plan_ stays valid when plans are added
  Plan* saved_plan_ = nullptr;
  Dims saved_input_dims_;
  Tensor workspace_;
};

}  // namespace

std::unique_ptr<LayerOp> make_max_pool(Context& context, const PoolSpec& spec) {
  return std::make_unique<PoolOp>(context, dnnl::algorithm::pooling_max,
                                  Window{spec.kernel, spec.kernel, spec.stride, spec.padding});
}

std::unique_ptr<LayerOp> make_global_avg_pool(Context& context) {
  return std::make_unique<PoolOp>(context, dnnl::algorithm::pooling_avg_exclude_padding,
                                  std::nullopt);
}

}  // namespace parity::trainer::cpu
