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

// y[i] = f(a[i], b[i]) over two tensors of the same shape.
template <class F>
Tensor elementwise(const Tensor& a, const Tensor& b, std::string_view what, F f) {
  require_same_dims(a, b, what);
  Tensor y = make_tensor(a.dims());
  const double* x = values_of(a).data();
  const double* z = values_of(b).data();
  double* out = values_of(y).data();
  const auto count = std::int64_t(values_of(y).size());
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < count; ++i) out[i] = f(x[i], z[i]);
  return y;
}

// dx = dy where the saved ReLU output is positive.
Tensor relu_backward(const Tensor& saved_output, const Tensor& dy) {
  return elementwise(saved_output, dy, "relu backward", relu_gradient);
}

// What both ReLU ops keep: the output of the last training forward, all
// their backward pass needs.
class SavedReluOutput {
 public:
  void keep(const Tensor& y, Mode mode) {
    if (mode == Mode::kTrain) output_ = y;
  }
  Tensor backward(const Tensor& dy, std::string_view op) {
    if (!output_.defined())
      throw Error(std::string(op) + " backward without a training forward",
                  "float64 reference backend");
    Tensor dx = relu_backward(output_, dy);
    output_ = Tensor();
    return dx;
  }

 private:
  Tensor output_;
};

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
    saved_.keep(y, mode);
    return y;
  }

  Tensor backward(const Tensor& dy) override { return saved_.backward(dy, "relu"); }

 private:
  SavedReluOutput saved_;
};

class ResidualAddReluOp final : public ResidualOp {
 public:
  Tensor forward(const Tensor& a, const Tensor& b, Mode mode) override {
    Tensor y = elementwise(a, b, "residual add", [](double x, double z) { return relu(x + z); });
    saved_.keep(y, mode);
    return y;
  }

  Tensor backward(const Tensor& dy) override { return saved_.backward(dy, "residual"); }

 private:
  SavedReluOutput saved_;
};

}  // namespace

std::unique_ptr<LayerOp> make_relu() { return std::make_unique<ReluOp>(); }
std::unique_ptr<ResidualOp> make_residual_add_relu() {
  return std::make_unique<ResidualAddReluOp>();
}

Tensor sum_of(const Tensor& a, const Tensor& b) {
  return elementwise(a, b, "add", [](double x, double z) { return x + z; });
}

}  // namespace parity::trainer::reference
