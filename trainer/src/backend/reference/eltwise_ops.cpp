// ReLU, the residual block's end y = relu(a + b), and the plain sum a + b, in
// float64. Both ReLU ops keep their output for the backward pass.
#include "parity/core/error.hpp"
#include "reference_ops.hpp"
#include "reference_tensor.hpp"
#include "relu.hpp"

namespace parity::trainer::reference {
namespace {

void require_same_dims(const Tensor& a, const Tensor& b, std::string_view what) {
  if (a.dims() != b.dims())
    throw Error(std::string(what) + ": " + dims_text(a.dims()) + " and " + dims_text(b.dims()) +
                    " differ",
                "float64 reference backend");
}

// dx = dy where the saved ReLU output is positive.
Tensor relu_backward(const Tensor& saved_output, const Tensor& dy) {
  require_same_dims(saved_output, dy, "relu backward");
  Tensor dx = make_tensor(dy.dims());
  const double* y = values_of(saved_output).data();
  const double* grad_out = values_of(dy).data();
  double* grad_in = values_of(dx).data();
  const auto count = std::int64_t(values_of(dx).size());
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < count; ++i) grad_in[i] = relu_gradient(y[i], grad_out[i]);
  return dx;
}

class ReluOp final : public LayerOp {
 public:
  std::string_view kind() const override { return "relu"; }

  Tensor forward(const Tensor& x, Mode mode) override {
    Tensor y = make_tensor(x.dims());
    const double* in = values_of(x).data();
    double* out = values_of(y).data();
    const auto count = std::int64_t(values_of(y).size());
#pragma omp parallel for simd schedule(static)
    for (std::int64_t i = 0; i < count; ++i) out[i] = relu(in[i]);
    if (mode == Mode::kTrain) saved_output_ = y;
    return y;
  }

  Tensor backward(const Tensor& dy) override {
    if (!saved_output_.defined())
      throw Error("relu backward without a training forward", "float64 reference backend");
    Tensor dx = relu_backward(saved_output_, dy);
    saved_output_ = Tensor();
    return dx;
  }

 private:
  Tensor saved_output_;
};

class ResidualAddReluOp final : public ResidualOp {
 public:
  Tensor forward(const Tensor& a, const Tensor& b, Mode mode) override {
    require_same_dims(a, b, "residual add");
    Tensor y = make_tensor(a.dims());
    const double* x = values_of(a).data();
    const double* z = values_of(b).data();
    double* out = values_of(y).data();
    const auto count = std::int64_t(values_of(y).size());
#pragma omp parallel for simd schedule(static)
    for (std::int64_t i = 0; i < count; ++i) out[i] = relu(x[i] + z[i]);
    if (mode == Mode::kTrain) saved_output_ = y;
    return y;
  }

  Tensor backward(const Tensor& dy) override {
    if (!saved_output_.defined())
      throw Error("residual backward without a training forward", "float64 reference backend");
    Tensor dx = relu_backward(saved_output_, dy);
    saved_output_ = Tensor();
    return dx;
  }

 private:
  Tensor saved_output_;
};

}  // namespace

std::unique_ptr<LayerOp> make_relu() { return std::make_unique<ReluOp>(); }
std::unique_ptr<ResidualOp> make_residual_add_relu() {
  return std::make_unique<ResidualAddReluOp>();
}

Tensor sum_of(const Tensor& a, const Tensor& b) {
  require_same_dims(a, b, "add");
  Tensor y = make_tensor(a.dims());
  const double* x = values_of(a).data();
  const double* z = values_of(b).data();
  double* out = values_of(y).data();
  const auto count = std::int64_t(values_of(y).size());
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < count; ++i) out[i] = x[i] + z[i];
  return y;
}

}  // namespace parity::trainer::reference
