// ReLU and the residual block's end, y = relu(a + b). Both keep their output
// for the backward pass (dx = y > 0 ? dy : 0), as the CPU backend does.
#include "cuda_ops.hpp"
#include "cuda_tensor.hpp"
#include "kernels.hpp"
#include "parity/core/error.hpp"

namespace parity::trainer::cuda {
namespace {

// The backward of a ReLU whose output was `y`.
Tensor relu_backward(Context& context, const Tensor& y, const Tensor& dy, const char* op) {
  if (!y.defined())
    throw Error(std::string(op) + " backward without a training forward", "cuda backend");
  if (dy.dims() != y.dims())
    throw Error(std::string(op) + " output gradient " + dims_text(dy.dims()) + " is not " +
                    dims_text(y.dims()),
                "cuda backend");
  Tensor dx = make_tensor(context, y.dims());
  kernels::relu_backward(data(y), data(dy), data(dx), y.element_count(), context.stream);
  return dx;
}

class ReluOp final : public LayerOp {
 public:
  explicit ReluOp(Context& context) : context_(context) {}
  std::string_view kind() const override { return "relu"; }

  Tensor forward(const Tensor& x, Mode mode) override {
    Tensor y = make_tensor(context_, x.dims());
    kernels::relu_forward(data(x), data(y), x.element_count(), context_.stream);
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
    Tensor y = make_tensor(context_, a.dims());
    kernels::add(data(a), data(b), data(y), y.element_count(), true, context_.stream);
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
