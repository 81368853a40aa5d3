// ReLU and the residual block's end, y = relu(a + b). Both keep their output
// for the backward pass (dx = y > 0 ? dy : 0), as the CPU backend does, in
// the activations' precision.
#include "cuda_ops.hpp"
#include "cuda_tensor.hpp"
#include "kernels.hpp"
#include "parity/core/error.hpp"

namespace parity::trainer::cuda {
namespace {

// The backward of a ReLU whose output was `y`.
Tensor relu_backward(Context& context, const Tensor& y, const Tensor& incoming, const char* op) {
  if (!y.defined())
    throw Error(std::string(op) + " backward without a training forward", "cuda backend");
  if (incoming.dims() != y.dims())
    throw Error(std::string(op) + " output gradient " + dims_text(incoming.dims()) + " is not " +
                    dims_text(y.dims()),
                "cuda backend");
  const Tensor dy = as_type(context, incoming, type_of(y));
  Tensor dx = make_tensor(context, y.dims(), type_of(y));
  kernels::relu_backward(type_of(y), raw(y), raw(dy), raw(dx), y.element_count(), context.stream);
  return dx;
}

class ReluOp final : public LayerOp {
 public:
  explicit ReluOp(Context& context) : context_(context) {}
  std::string_view kind() const override { return "relu"; }

  Tensor forward(const Tensor& input, Mode mode) override {
    const Tensor x = as_activation(context_, input);
    Tensor y = make_activation(context_, x.dims());
    kernels::relu_forward(type_of(x), raw(x), raw(y), x.element_count(), context_.stream);
    if (mode == Mode::kTrain) saved_output_ = y;
    return y;
  }

  Tensor backward(const Tensor& dy) override {
    Tensor dx = relu_backward(context_, saved_output_, dy, "relu");
    saved_output_ = Tensor();
    return dx;
  }

 private:
  Context& context_;
  Tensor saved_output_;
};

class ResidualAddReluOp final : public ResidualOp {
 public:
  explicit ResidualAddReluOp(Context& context) : context_(context) {}

  Tensor forward(const Tensor& a, const Tensor& b, Mode mode) override {
    if (a.dims() != b.dims())
      throw Error("residual add of " + dims_text(a.dims()) + " and " + dims_text(b.dims()),
                  "cuda backend");
    Tensor y = make_activation(context_, a.dims());
    kernels::add(type_of(y), raw(as_activation(context_, a)), raw(as_activation(context_, b)),
                 raw(y), y.element_count(), true, context_.stream);
    if (mode == Mode::kTrain) saved_output_ = y;
    return y;
  }

  Tensor backward(const Tensor& dy) override {
    Tensor dx = relu_backward(context_, saved_output_, dy, "residual");
    saved_output_ = Tensor();
    return dx;
  }

 private:
  Context& context_;
  Tensor saved_output_;
};

}  // namespace

std::unique_ptr<LayerOp> make_relu(Context& context) { return std::make_unique<ReluOp>(context); }

std::unique_ptr<ResidualOp> make_residual_add_relu(Context& context) {
  return std::make_unique<ResidualAddReluOp>(context);
}

}  // namespace parity::trainer::cuda
