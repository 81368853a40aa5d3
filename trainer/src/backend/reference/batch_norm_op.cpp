// Batch normalization in float64, optionally with the following ReLU fused
// in, as PyTorch's BatchNorm2d (then ReLU) computes it in training: the
// batch mean and biased variance per channel normalize; the running
// statistics move by `momentum` towards the batch mean and the unbiased batch
// variance. Evaluation normalizes with the running statistics.
#include <cmath>

#include "parity/core/error.hpp"
#include "reference_ops.hpp"
#include "reference_tensor.hpp"
#include "relu.hpp"

namespace parity::trainer::reference {
namespace {

class BatchNormOp final : public LayerOp {
 public:
  explicit BatchNormOp(const BatchNormSpec& spec)
      : spec_(spec),
        gamma_(make_param({spec.channels})),
        beta_(make_param({spec.channels})),
        running_mean_(make_tensor({spec.channels})),
        running_var_(make_tensor({spec.channels})),
        batch_mean_(std::size_t(spec.channels)),
        inverse_std_(std::size_t(spec.channels)) {
    for (double& g : values_of(gamma_.value)) g = 1.0;
    for (double& v : values_of(running_var_)) v = 1.0;
  }

  Tensor forward(const Tensor& x, Mode mode) override {
    require_nchw(x, "batch norm");
    if (x.dims()[1] != spec_.channels)
      throw Error("batch norm input " + dims_text(x.dims()) + " does not have " +
                      std::to_string(spec_.channels) + " channels",
                  "float64 reference backend");
    const Dims& d = x.dims();
    const std::int64_t batch = d[0], plane = d[2] * d[3];
    Tensor y = make_tensor(d);
    const double* in = values_of(x).data();
    double* out = values_of(y).data();
    const double* gamma = values_of(gamma_.value).data();
    const double* beta = values_of(beta_.value).data();
    double* running_mean = values_of(running_mean_).data();
    double* running_var = values_of(running_var_).data();
    const double count = double(batch * plane);
    const double m = spec_.momentum;
#pragma omp parallel for schedule(static)
    for (std::int64_t c = 0; c < spec_.channels; ++c) {
      double mean, inverse_std;
      if (mode == Mode::kTrain) {
        double sum = 0.0;
        for (std::int64_t n = 0; n < batch; ++n)
          for (std::int64_t i = 0; i < plane; ++i) sum += in[(n * spec_.channels + c) * plane + i];
        mean = sum / count;
        double squares = 0.0;  // two passes: no cancellation
        for (std::int64_t n = 0; n < batch; ++n)
          for (std::int64_t i = 0; i < plane; ++i) {
            const double centered = in[(n * spec_.channels + c) * plane + i] - mean;
            squares += centered * centered;
          }
        const double variance = squares / count;
        inverse_std = 1.0 / std::sqrt(variance + spec_.eps);
        batch_mean_[std::size_t(c)] = mean;
        inverse_std_[std::size_t(c)] = inverse_std;
        const double unbiased = count > 1 ? squares / (count - 1) : variance;
        running_mean[c] = (1 - m) * running_mean[c] + m * mean;
        running_var[c] = (1 - m) * running_var[c] + m * unbiased;
      } else {
        mean = running_mean[c];
        inverse_std = 1.0 / std::sqrt(running_var[c] + spec_.eps);
      }
      for (std::int64_t n = 0; n < batch; ++n)
        for (std::int64_t i = 0; i < plane; ++i) {
          const std::int64_t at = (n * spec_.channels + c) * plane + i;
          const double v = (in[at] - mean) * inverse_std * gamma[c] + beta[c];
          out[at] = spec_.fused_relu ? relu(v) : v;
        }
    }
    if (mode == Mode::kTrain) {
      saved_input_ = x;
      saved_output_ = y;
    }
    return y;
  }

  Tensor backward(const Tensor& dy) override {
    if (!saved_input_.defined())
      throw Error("batch norm backward without a training forward", "float64 reference backend");
    const Dims& d = saved_input_.dims();
    if (dy.dims() != d)
      throw Error("batch norm output gradient " + dims_text(dy.dims()) + " differs from its input " +
                      dims_text(d),
                  "float64 reference backend");
    const std::int64_t batch = d[0], plane = d[2] * d[3];
    const double count = double(batch * plane);
    Tensor dx = make_tensor(d);
    const double* in = values_of(saved_input_).data();
    const double* out = values_of(saved_output_).data();
    const double* grad_out = values_of(dy).data();
    double* grad_in = values_of(dx).data();
    const double* gamma = values_of(gamma_.value).data();
    double* grad_gamma = values_of(gamma_.grad).data();
    double* grad_beta = values_of(beta_.grad).data();
#pragma omp parallel for schedule(static)
    for (std::int64_t c = 0; c < spec_.channels; ++c) {
      const double mean = batch_mean_[std::size_t(c)], inverse_std = inverse_std_[std::size_t(c)];
      // The gradient at the normalization's output: through the ReLU first when fused.
      const auto grad_at = [&](std::int64_t at) {
        return spec_.fused_relu ? relu_gradient(out[at], grad_out[at]) : grad_out[at];
      };
      double sum_grad = 0.0, sum_grad_xhat = 0.0;
      for (std::int64_t n = 0; n < batch; ++n)
        for (std::int64_t i = 0; i < plane; ++i) {
          const std::int64_t at = (n * spec_.channels + c) * plane + i;
          const double g = grad_at(at);
          sum_grad += g;
          sum_grad_xhat += g * (in[at] - mean) * inverse_std;
        }
      grad_beta[c] = sum_grad;
      grad_gamma[c] = sum_grad_xhat;
      // dx = gamma / sigma * (g - mean(g) - xhat * mean(g * xhat))
      const double scale = gamma[c] * inverse_std;
      for (std::int64_t n = 0; n < batch; ++n)
        for (std::int64_t i = 0; i < plane; ++i) {
          const std::int64_t at = (n * spec_.channels + c) * plane + i;
          const double xhat = (in[at] - mean) * inverse_std;
          grad_in[at] = scale * (grad_at(at) - sum_grad / count - xhat * sum_grad_xhat / count);
        }
    }
    saved_input_ = saved_output_ = Tensor();
    return dx;
  }

  std::string_view kind() const override { return spec_.fused_relu ? "batch_norm_relu" : "batch_norm"; }
  std::vector<ParamSlot> parameters() override {
    return {{"weight", &gamma_, {spec_.channels}, false}, {"bias", &beta_, {spec_.channels}, false}};
  }
  std::vector<BufferSlot> buffers() override {
    return {{"running_mean", &running_mean_, {spec_.channels}},
            {"running_var", &running_var_, {spec_.channels}}};
  }

 private:
  BatchNormSpec spec_;
  ParamTensors gamma_, beta_;
  Tensor running_mean_, running_var_;
  std::vector<double> batch_mean_, inverse_std_;  // of the last training forward
  Tensor saved_input_, saved_output_;
};

}  // namespace

std::unique_ptr<LayerOp> make_batch_norm(const BatchNormSpec& spec) {
  return std::make_unique<BatchNormOp>(spec);
}

}  // namespace parity::trainer::reference
