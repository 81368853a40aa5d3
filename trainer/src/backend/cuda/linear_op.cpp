// Fully connected layer (torchvision's Linear) on cuBLAS. Row-major
// y[N, K] = x[N, C] W[K, C]^T + b is, in cuBLAS's column-major terms,
// y^T = W^T' x^T with W read transposed; the gradients follow the same way.
// Its input is the global average pool's [N, C, 1, 1], whose NHWC bytes are
// the [N, C] matrix itself.
#include "cuda_check.hpp"
#include "cuda_ops.hpp"
#include "cuda_tensor.hpp"
#include "kernels.hpp"
#include "parity/core/error.hpp"

namespace parity::trainer::cuda {
namespace {

constexpr float kOne = 1.0f, kZero = 0.0f;

class LinearOp final : public LayerOp {
 public:
  LinearOp(Context& context, const LinearSpec& spec) : context_(context), spec_(spec) {
    weight_ = make_param(context, {spec.out_features, spec.in_features});
    bias_ = make_param(context, {spec.out_features});
  }

  Tensor forward(const Tensor& x, Mode mode) override {
    const Dims& d = x.dims();
    const bool matrix = d.size() == 2 && d[1] == spec_.in_features;
    const bool pooled = d.size() == 4 && d[1] == spec_.in_features && d[2] == 1 && d[3] == 1;
    if (!matrix && !pooled)
      throw Error("linear input " + dims_text(d) + " is not [N, " +
                      std::to_string(spec_.in_features) + "] or [N, " +
                      std::to_string(spec_.in_features) + ", 1, 1]",
                  "cuda backend");
    const std::int64_t batch = d[0];
    if (mode == Mode::kTrain && batch != spec_.input.at(0))
      throw Error("training batch of " + std::to_string(batch) + " differs from the model's " +
                      std::to_string(spec_.input[0]),
                  "cuda backend linear");
    const int k = int(spec_.out_features), c = int(spec_.in_features), n = int(batch);
    Tensor y = make_tensor(context_, {batch, spec_.out_features});
    PARITY_CUBLAS_CHECK(cublasSgemm(context_.cublas, CUBLAS_OP_T, CUBLAS_OP_N, k, n, c, &kOne,
                                    data(weight_.value), c, data(x), c, &kZero, data(y), k));
    kernels::add_bias(data(y), data(bias_.value), batch, spec_.out_features, context_.stream);
    if (mode == Mode::kTrain) saved_input_ = x;
    return y;
  }

  Tensor backward(const Tensor& dy) override {
    if (!saved_input_.defined())
      throw Error("linear backward without a training forward", "cuda backend");
    const std::int64_t batch = saved_input_.dims()[0];
    if (dy.dims() != Dims{batch, spec_.out_features})
      throw Error("linear output gradient " + dims_text(dy.dims()) + " is not [" +
                      std::to_string(batch) + ", " + std::to_string(spec_.out_features) + "]",
                  "cuda backend");
    const int k = int(spec_.out_features), c = int(spec_.in_features), n = int(batch);
    // dW[K, C] = dy^T x: column-major dW^T (C x K) = x^T (C x N) * dy (N x K).
    PARITY_CUBLAS_CHECK(cublasSgemm(context_.cublas, CUBLAS_OP_N, CUBLAS_OP_T, c, k, n, &kOne,
                                    data(saved_input_), c, data(dy), k, &kZero, data(weight_.grad),
                                    c));
    kernels::column_sums(data(dy), data(bias_.grad), batch, spec_.out_features, context_.stream);
    // dx[N, C] = dy W: column-major dx^T (C x N) = W^T (C x K) * dy^T (K x N).
    Tensor dx = make_tensor(context_, saved_input_.dims());
    PARITY_CUBLAS_CHECK(cublasSgemm(context_.cublas, CUBLAS_OP_N, CUBLAS_OP_N, c, n, k, &kOne,
                                    data(weight_.value), c, data(dy), k, &kZero, data(dx), c));
    saved_input_ = Tensor();
    return dx;
  }

  std::string_view kind() const override { return "linear"; }
  std::vector<ParamSlot> parameters() override {
    return {{"weight", &weight_, {spec_.out_features, spec_.in_features}, true},
            {"bias", &bias_, {spec_.out_features}, false}};
  }

 private:
  Context& context_;
  LinearSpec spec_;
  ParamTensors weight_, bias_;
  Tensor saved_input_;
};

}  // namespace

std::unique_ptr<LayerOp> make_linear(Context& context, const LinearSpec& spec) {
  return std::make_unique<LinearOp>(context, spec);
}

}  // namespace parity::trainer::cuda
