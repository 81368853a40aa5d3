// Fully connected layer (torchvision's Linear) on cuBLAS. Row-major
// y[N, K] = x[N, C] W[K, C]^T + b is, in cuBLAS's column-major terms,
// y^T = W^T' x^T with W read transposed; the gradients follow the same way.
// Its input is the global average pool's [N, C, 1, 1], whose NHWC bytes are
// the [N, C] matrix itself. In float16 and bfloat16 the products read 16-bit
// operands (the activations, the weight rounded at every forward, the
// incoming gradient rounded) and accumulate in float32; the logits and the
// parameters' gradients come out in float32, the input gradient in 16 bits.
#include "cuda_check.hpp"
#include "cuda_ops.hpp"
#include "cuda_tensor.hpp"
#include "kernels.hpp"
#include "parity/core/error.hpp"

namespace parity::trainer::cuda {
namespace {

constexpr float kOne = 1.0f, kZero = 0.0f;

cudaDataType_t cublas_type(Precision type) {
  switch (type) {
    case Precision::kFloat16:
      return CUDA_R_16F;
    case Precision::kBFloat16:
      return CUDA_R_16BF;
    case Precision::kFloat64:  // never: make_cuda_backend refuses float64
      return CUDA_R_64F;
    case Precision::kFloat32:
      break;
  }
  return CUDA_R_32F;
}

// A column-major product C = op(A) op(B) of matrices of the given types.
struct Gemm {
  cublasOperation_t a_op, b_op;
  int m, n, k;
  const void* a;
  Precision a_type;
  int lda;
  const void* b;
  Precision b_type;
  int ldb;
  void* c;
  Precision c_type;
  int ldc;
};

class LinearOp final : public LayerOp {
 public:
  LinearOp(Context& context, const LinearSpec& spec) : context_(context), spec_(spec) {
    weight_ = make_param(context, {spec.out_features, spec.in_features});
    bias_ = make_param(context, {spec.out_features});
    if (type_ != Precision::kFloat32)
      rounded_weight_ = make_tensor(context, {spec.out_features, spec.in_features}, type_);
  }

  Tensor forward(const Tensor& input, Mode mode) override {
    const Dims& d = input.dims();
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
    const Tensor x = as_activation(context_, input);
    Tensor y = make_tensor(context_, {batch, spec_.out_features});
    if (type_ != Precision::kFloat32)
      kernels::convert(Precision::kFloat32, raw(weight_.value), type_, raw(rounded_weight_),
                       rounded_weight_.element_count(), context_.stream);
    multiply({CUBLAS_OP_T, CUBLAS_OP_N, k, n, c, weight(), type_, c, raw(x), type_, c, raw(y),
              Precision::kFloat32, k});
    kernels::add_bias(data(y), data(bias_.value), batch, spec_.out_features, context_.stream);
    if (mode == Mode::kTrain) saved_input_ = x;
    return y;
  }

  Tensor backward(const Tensor& incoming) override {
    if (!saved_input_.defined())
      throw Error("linear backward without a training forward", "cuda backend");
    const std::int64_t batch = saved_input_.dims()[0];
    if (incoming.dims() != Dims{batch, spec_.out_features})
      throw Error("linear output gradient " + dims_text(incoming.dims()) + " is not [" +
                      std::to_string(batch) + ", " + std::to_string(spec_.out_features) + "]",
                  "cuda backend");
    const int k = int(spec_.out_features), c = int(spec_.in_features), n = int(batch);
    const Tensor dy_float = as_type(context_, incoming, Precision::kFloat32);
    const Tensor dy = as_activation(context_, dy_float);
    // dW[K, C] = dy^T x: column-major dW^T (C x K) = x^T (C x N) * dy (N x K).
    multiply({CUBLAS_OP_N, CUBLAS_OP_T, c, k, n, raw(saved_input_), type_, c, raw(dy), type_, k,
              raw(weight_.grad), Precision::kFloat32, c});
    kernels::column_sums(data(dy_float), data(bias_.grad), batch, spec_.out_features,
                         context_.stream);
    // dx[N, C] = dy W: column-major dx^T (C x N) = W^T (C x K) * dy^T (K x N).
    Tensor dx = make_activation(context_, saved_input_.dims());
    multiply({CUBLAS_OP_N, CUBLAS_OP_N, c, n, k, weight(), type_, c, raw(dy), type_, k, raw(dx),
              type_, c});
    saved_input_ = Tensor();
    return dx;
  }

  std::string_view kind() const override { return "linear"; }
  std::vector<ParamSlot> parameters() override {
    return {{"weight", &weight_, {spec_.out_features, spec_.in_features}, true},
            {"bias", &bias_, {spec_.out_features}, false}};
  }

 private:
  // The weight the products read: the float32 master or the copy the last forward rounded.
  const void* weight() const {
    return type_ == Precision::kFloat32 ? raw(weight_.value) : raw(rounded_weight_);
  }

  void multiply(const Gemm& g) {
    // Float32 accumulation throughout; TF32 only where float32 was asked to allow it.
    const cublasComputeType_t compute = type_ == Precision::kFloat32 && context_.options.tf32
                                            ? CUBLAS_COMPUTE_32F_FAST_TF32
                                            : CUBLAS_COMPUTE_32F;
    PARITY_CUBLAS_CHECK(cublasGemmEx(context_.cublas, g.a_op, g.b_op, g.m, g.n, g.k, &kOne, g.a,
                                     cublas_type(g.a_type), g.lda, g.b, cublas_type(g.b_type),
                                     g.ldb, &kZero, g.c, cublas_type(g.c_type), g.ldc, compute,
                                     CUBLAS_GEMM_DEFAULT));
  }

  Context& context_;
  LinearSpec spec_;
  Precision type_ = context_.options.precision;
  ParamTensors weight_, bias_;
  Tensor rounded_weight_;  // float16 / bfloat16: the weight the last forward multiplied
  Tensor saved_input_;     // in the activations' precision
};

}  // namespace

std::unique_ptr<LayerOp> make_linear(Context& context, const LinearSpec& spec) {
  return std::make_unique<LinearOp>(context, spec);
}

}  // namespace parity::trainer::cuda
