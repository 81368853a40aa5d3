// Fully connected layer (torchvision's Linear) in float64: y = x W^T + b for
// x [N, in] or the pooled [N, in, 1, 1], W [out, in]; the input gradient
// comes back in the shape the input came in.
#include "gemm.hpp"
#include "parity/core/error.hpp"
#include "reference_ops.hpp"
#include "reference_tensor.hpp"

namespace parity::trainer::reference {
namespace {

class LinearOp final : public LayerOp {
 public:
  explicit LinearOp(const LinearSpec& spec)
      : spec_(spec),
        weight_(make_param({spec.out_features, spec.in_features})),
        bias_(make_param({spec.out_features})) {}

  Tensor forward(const Tensor& x, Mode mode) override {
    const Dims& d = x.dims();
    const bool flat = d.size() == 2 && d[1] == spec_.in_features;
    if (!flat && (d.size() != 4 || d[1] != spec_.in_features || d[2] != 1 || d[3] != 1))
      throw Error("linear input " + dims_text(d) + " is not [N, " +
                      std::to_string(spec_.in_features) + "] or [N, " +
                      std::to_string(spec_.in_features) + ", 1, 1]",
                  "float64 reference backend");
    const std::int64_t batch = d[0];
    if (mode == Mode::kTrain && batch != spec_.input.at(0))
      throw Error("training batch of " + std::to_string(batch) + " differs from the model's " +
                      std::to_string(spec_.input.at(0)),
                  "float64 reference backend linear");
    Tensor y = make_tensor({batch, spec_.out_features});
    double* out = values_of(y).data();
    const double* bias = values_of(bias_.value).data();
    for (std::int64_t n = 0; n < batch; ++n)
      for (std::int64_t o = 0; o < spec_.out_features; ++o) out[n * spec_.out_features + o] = bias[o];
    gemm(batch, spec_.out_features, spec_.in_features,
         row_major(values_of(x).data(), spec_.in_features),
         row_major(values_of(weight_.value).data(), spec_.in_features).transposed(), out,
         spec_.out_features, true);
    if (mode == Mode::kTrain) saved_input_ = x;
    return y;
  }

  Tensor backward(const Tensor& dy) override {
    if (!saved_input_.defined())
      throw Error("linear backward without a training forward", "float64 reference backend");
    const std::int64_t batch = saved_input_.dims()[0];
    if (dy.dims() != Dims{batch, spec_.out_features})
      throw Error("linear output gradient " + dims_text(dy.dims()) + " is not [" +
                      std::to_string(batch) + ", " + std::to_string(spec_.out_features) + "]",
                  "float64 reference backend");
    const MatrixView grad_out = row_major(values_of(dy).data(), spec_.out_features);
    // dW = dy^T x, db = the column sums of dy, dx = dy W.
    gemm(spec_.out_features, spec_.in_features, batch, grad_out.transposed(),
         row_major(values_of(saved_input_).data(), spec_.in_features),
         values_of(weight_.grad).data(), spec_.in_features, false);
    const double* grad = values_of(dy).data();
    double* grad_bias = values_of(bias_.grad).data();
    for (std::int64_t o = 0; o < spec_.out_features; ++o) {
      double sum = 0.0;
      for (std::int64_t n = 0; n < batch; ++n) sum += grad[n * spec_.out_features + o];
      grad_bias[o] = sum;
    }
    Tensor dx = make_tensor(saved_input_.dims());
    gemm(batch, spec_.in_features, spec_.out_features, grad_out,
         row_major(values_of(weight_.value).data(), spec_.in_features), values_of(dx).data(),
         spec_.in_features, false);
    saved_input_ = Tensor();
    return dx;
  }

  std::string_view kind() const override { return "linear"; }
  std::vector<ParamSlot> parameters() override {
    return {{"weight", &weight_, {spec_.out_features, spec_.in_features}, true},
            {"bias", &bias_, {spec_.out_features}, false}};
  }

 private:
  LinearSpec spec_;
  ParamTensors weight_, bias_;
  Tensor saved_input_;
};

}  // namespace

std::unique_ptr<LayerOp> make_linear(const LinearSpec& spec) {
  return std::make_unique<LinearOp>(spec);
}

}  // namespace parity::trainer::reference
