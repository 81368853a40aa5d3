// Pooling in float64 with PyTorch's semantics. Max pooling: padding never
// wins (a window's candidates are its elements inside the image), the first
// maximum in row-major window order wins a tie, NaN wins over any number;
// training keeps each output's argmax for the backward pass. Global average
// pooling: [N, C, H, W] to [N, C, 1, 1].
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "parity/core/error.hpp"
#include "reference_ops.hpp"
#include "reference_tensor.hpp"

namespace parity::trainer::reference {
namespace {

class MaxPoolOp final : public LayerOp {
 public:
  explicit MaxPoolOp(const PoolSpec& spec) : spec_(spec) {}
  std::string_view kind() const override { return "max_pool"; }

  Tensor forward(const Tensor& x, Mode mode) override {
    require_nchw(x, "max pooling");
    const Dims& d = x.dims();
    const std::int64_t height = d[2], width = d[3];
    const std::int64_t out_height = output_size(height), out_width = output_size(width);
    if (out_height < 1 || out_width < 1)
      throw Error("max pooling input " + dims_text(d) + " is smaller than its " +
                      std::to_string(spec_.kernel) + "x" + std::to_string(spec_.kernel) + " window",
                  "float64 reference backend");
    Tensor y = make_tensor({d[0], d[1], out_height, out_width});
    const double* in = values_of(x).data();
    double* out = values_of(y).data();
    std::vector<std::int64_t> argmax(values_of(y).size());
    const std::int64_t planes = d[0] * d[1];
#pragma omp parallel for schedule(static)
    for (std::int64_t p = 0; p < planes; ++p) {
      const double* plane = in + p * height * width;
      for (std::int64_t oh = 0; oh < out_height; ++oh)
        for (std::int64_t ow = 0; ow < out_width; ++ow) {
          const std::int64_t top = oh * spec_.stride - spec_.padding;
          const std::int64_t left = ow * spec_.stride - spec_.padding;
          const std::int64_t h0 = std::max<std::int64_t>(top, 0), w0 = std::max<std::int64_t>(left, 0);
          const std::int64_t h1 = std::min(top + spec_.kernel, height);
          const std::int64_t w1 = std::min(left + spec_.kernel, width);
          double best = -std::numeric_limits<double>::infinity();
          std::int64_t best_at = h0 * width + w0;  // a window of -inf: its first element
          for (std::int64_t ih = h0; ih < h1; ++ih)
            for (std::int64_t iw = w0; iw < w1; ++iw) {
              const double v = plane[ih * width + iw];
              if (v > best || std::isnan(v)) best = v, best_at = ih * width + iw;
            }
          const std::int64_t at = (p * out_height + oh) * out_width + ow;
          out[at] = best;
          argmax[std::size_t(at)] = p * height * width + best_at;
        }
    }
    if (mode == Mode::kTrain) {
      argmax_ = std::move(argmax);
      saved_input_dims_ = d;
    }
    return y;
  }

  Tensor backward(const Tensor& dy) override {
    if (saved_input_dims_.empty())
      throw Error("max pooling backward without a training forward", "float64 reference backend");
    if (std::size_t(dy.element_count()) != argmax_.size())
      throw Error("max pooling output gradient " + dims_text(dy.dims()) + " does not fit",
                  "float64 reference backend");
    Tensor dx = make_tensor(saved_input_dims_);
    const double* grad_out = values_of(dy).data();
    double* grad_in = values_of(dx).data();
    // Windows overlap: sequential, so that no two additions race.
    for (std::size_t i = 0; i < argmax_.size(); ++i) grad_in[argmax_[i]] += grad_out[i];
    saved_input_dims_.clear();
    return dx;
  }

 private:
  std::int64_t output_size(std::int64_t input) const {
    return (input + 2 * spec_.padding - spec_.kernel) / spec_.stride + 1;
  }

  PoolSpec spec_;
  std::vector<std::int64_t> argmax_;  // per output element, its input element
  Dims saved_input_dims_;
};

class GlobalAvgPoolOp final : public LayerOp {
 public:
  std::string_view kind() const override { return "avg_pool"; }

  Tensor forward(const Tensor& x, Mode mode) override {
    require_nchw(x, "global average pooling");
    const Dims& d = x.dims();
    const std::int64_t planes = d[0] * d[1], plane = d[2] * d[3];
    Tensor y = make_tensor({d[0], d[1], 1, 1});
    const double* in = values_of(x).data();
    double* out = values_of(y).data();
#pragma omp parallel for schedule(static)
    for (std::int64_t p = 0; p < planes; ++p) {
      double sum = 0.0;
      for (std::int64_t i = 0; i < plane; ++i) sum += in[p * plane + i];
      out[p] = sum / double(plane);
    }
    if (mode == Mode::kTrain) saved_input_dims_ = d;
    return y;
  }

  Tensor backward(const Tensor& dy) override {
    if (saved_input_dims_.empty())
      throw Error("average pooling backward without a training forward",
                  "float64 reference backend");
    const Dims& d = saved_input_dims_;
    const std::int64_t planes = d[0] * d[1], plane = d[2] * d[3];
    if (dy.element_count() != planes)
      throw Error("average pooling output gradient " + dims_text(dy.dims()) + " does not fit " +
                      dims_text(d),
                  "float64 reference backend");
    Tensor dx = make_tensor(d);
    const double* grad_out = values_of(dy).data();
    double* grad_in = values_of(dx).data();
#pragma omp parallel for schedule(static)
    for (std::int64_t p = 0; p < planes; ++p)
      for (std::int64_t i = 0; i < plane; ++i) grad_in[p * plane + i] = grad_out[p] / double(plane);
    saved_input_dims_.clear();
    return dx;
  }

 private:
  Dims saved_input_dims_;
};

}  // namespace

std::unique_ptr<LayerOp> make_max_pool(const PoolSpec& spec) {
  return std::make_unique<MaxPoolOp>(spec);
}
std::unique_ptr<LayerOp> make_global_avg_pool() { return std::make_unique<GlobalAvgPoolOp>(); }

}  // namespace parity::trainer::reference
