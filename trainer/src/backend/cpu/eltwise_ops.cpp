// ReLU and the residual block's end, y = relu(a + b), on oneDNN. Both keep
// their output for the backward pass (oneDNN's relu_use_dst_for_bwd), which
// lets the add and the ReLU run as one binary primitive with a post-op.
#include <deque>

#include "cpu_ops.hpp"
#include "elementwise_add.hpp"
#include "parity/core/error.hpp"

namespace parity::trainer::cpu {
namespace {

using dnnl::memory;
constexpr auto kReluUseDst = dnnl::algorithm::eltwise_relu_use_dst_for_bwd;

// The backward of a ReLU whose output was `y`, for one layout.
class ReluBackward {
 public:
  explicit ReluBackward(Context& context) : context_(context) {}

  Tensor run(const Tensor& y, const Tensor& dy) {
    const memory::desc& layout = cpu_tensor(y).desc();
    const Tensor grad_out = in_layout(context_, dy, layout);
    Tensor dx = make_tensor(context_, y.dims(), layout);
    execute(context_, primitive_for(layout),
            {{DNNL_ARG_DST, mem(y)}, {DNNL_ARG_DIFF_DST, mem(grad_out)}, {DNNL_ARG_DIFF_SRC, mem(dx)}});
    return dx;
  }

 private:
  dnnl::eltwise_backward& primitive_for(const memory::desc& layout) {
    for (auto& [known, primitive] : primitives_)
      if (known == layout) return primitive;
    const auto hint = dnnl::eltwise_forward::primitive_desc(
        dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_training, kReluUseDst, layout, 0.f),
        context_.engine);
    dnnl::eltwise_backward primitive(dnnl::eltwise_backward::primitive_desc(
        dnnl::eltwise_backward::desc(kReluUseDst, layout, layout, 0.f), context_.engine, hint));
    return primitives_.emplace_back(layout, primitive).second;
  }

  Context& context_;
  std::deque<std::pair<memory::desc, dnnl::eltwise_backward>> primitives_;
};

class ReluOp final : public LayerOp {
 public:
  explicit ReluOp(Context& context) : context_(context), backward_(context) {}
  std::string_view kind() const override { return "relu"; }

  Tensor forward(const Tensor& x, Mode mode) override {
    const memory::desc& layout = cpu_tensor(x).desc();
    Tensor y = make_tensor(context_, x.dims(), layout);
    execute(context_, primitive_for(layout), {{DNNL_ARG_SRC, mem(x)}, {DNNL_ARG_DST, mem(y)}});
    if (mode == Mode::kTrain) saved_output_ = y;
    return y;
  }

  Tensor backward(const Tensor& dy) override {
    if (!saved_output_.defined()) throw Error("relu backward without a training forward", "cpu backend");
    Tensor dx = backward_.run(saved_output_, dy);
    saved_output_ = Tensor();
    return dx;
  }

 private:
  dnnl::eltwise_forward& primitive_for(const memory::desc& layout) {
    for (auto& [known, primitive] : primitives_)
      if (known == layout) return primitive;
    dnnl::eltwise_forward primitive(dnnl::eltwise_forward::primitive_desc(
        dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_training, kReluUseDst, layout, 0.f),
        context_.engine));
    return primitives_.emplace_back(layout, primitive).second;
  }

  Context& context_;
  ReluBackward backward_;
  std::deque<std::pair<memory::desc, dnnl::eltwise_forward>> primitives_;
  Tensor saved_output_;
};

class ResidualAddReluOp final : public ResidualOp {
 public:
  explicit ResidualAddReluOp(Context& context)
      : add_(context, ElementwiseAdd::kWithRelu), backward_(context) {}

  Tensor forward(const Tensor& a, const Tensor& b, Mode mode) override {
    Tensor y = add_.run(a, b);
    if (mode == Mode::kTrain) saved_output_ = y;
    return y;
  }

  Tensor backward(const Tensor& dy) override {
    if (!saved_output_.defined())
      throw Error("residual backward without a training forward", "cpu backend");
    Tensor dx = backward_.run(saved_output_, dy);
    saved_output_ = Tensor();
    return dx;
  }

 private:
  ElementwiseAdd add_;
  ReluBackward backward_;
  Tensor saved_output_;
};

}  // namespace

std::unique_ptr<LayerOp> make_relu(Context& context) { return std::make_unique<ReluOp>(context); }

std::unique_ptr<ResidualOp> make_residual_add_relu(Context& context) {
  return std::make_unique<ResidualAddReluOp>(context);
}

}  // namespace parity::trainer::cpu
