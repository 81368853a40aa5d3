#include "naive_layers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace naive {

Values conv2d(const Values& x, Shape in, const Values& w, std::int64_t out_channels,
              std::int64_t kernel, std::int64_t stride, std::int64_t padding, Shape* out,
              std::int64_t padding_end) {
  const std::int64_t pads = padding + (padding_end < 0 ? padding : padding_end);
  const Shape o{in.n, out_channels, (in.h + pads - kernel) / stride + 1, (in.w + pads - kernel) / stride + 1};
  Values y(static_cast<std::size_t>(o.count()), 0.0);
  for (std::int64_t n = 0; n < o.n; ++n)
    for (std::int64_t oc = 0; oc < o.c; ++oc)
      for (std::int64_t oh = 0; oh < o.h; ++oh)
        for (std::int64_t ow = 0; ow < o.w; ++ow) {
          double sum = 0.0;
          for (std::int64_t ic = 0; ic < in.c; ++ic)
            for (std::int64_t kh = 0; kh < kernel; ++kh)
              for (std::int64_t kw = 0; kw < kernel; ++kw) {
                const std::int64_t ih = oh * stride - padding + kh, iw = ow * stride - padding + kw;
                if (ih < 0 || iw < 0 || ih >= in.h || iw >= in.w) continue;
                sum += x[((n * in.c + ic) * in.h + ih) * in.w + iw] *
                       w[((oc * in.c + ic) * kernel + kh) * kernel + kw];
              }
          y[((n * o.c + oc) * o.h + oh) * o.w + ow] = sum;
        }
  if (out) *out = o;
  return y;
}

Values batch_norm(const Values& x, Shape in, const Values& gamma, const Values& beta, double eps,
                  bool relu) {
  Values y(x.size());
  const double count = double(in.n * in.h * in.w);
  for (std::int64_t c = 0; c < in.c; ++c) {
    double mean = 0.0, var = 0.0;
    for (std::int64_t n = 0; n < in.n; ++n)
      for (std::int64_t i = 0; i < in.h * in.w; ++i) mean += x[(n * in.c + c) * in.h * in.w + i];
    mean /= count;
    for (std::int64_t n = 0; n < in.n; ++n)
      for (std::int64_t i = 0; i < in.h * in.w; ++i) {
        const double d = x[(n * in.c + c) * in.h * in.w + i] - mean;
        var += d * d;
      }
    var /= count;
    for (std::int64_t n = 0; n < in.n; ++n)
      for (std::int64_t i = 0; i < in.h * in.w; ++i) {
        const auto at = (n * in.c + c) * in.h * in.w + i;
        const double v = gamma[c] * (x[at] - mean) / std::sqrt(var + eps) + beta[c];
        y[at] = relu ? std::max(v, 0.0) : v;
      }
  }
  return y;
}

Values max_pool(const Values& x, Shape in, std::int64_t kernel, std::int64_t stride,
                std::int64_t padding, Shape* out) {
  const Shape o{in.n, in.c, (in.h + 2 * padding - kernel) / stride + 1,
                (in.w + 2 * padding - kernel) / stride + 1};
  Values y(static_cast<std::size_t>(o.count()));
  for (std::int64_t n = 0; n < o.n; ++n)
    for (std::int64_t c = 0; c < o.c; ++c)
      for (std::int64_t oh = 0; oh < o.h; ++oh)
        for (std::int64_t ow = 0; ow < o.w; ++ow) {
          double best = -std::numeric_limits<double>::infinity();
          for (std::int64_t kh = 0; kh < kernel; ++kh)
            for (std::int64_t kw = 0; kw < kernel; ++kw) {
              const std::int64_t ih = oh * stride - padding + kh, iw = ow * stride - padding + kw;
              if (ih < 0 || iw < 0 || ih >= in.h || iw >= in.w) continue;
              best = std::max(best, x[((n * in.c + c) * in.h + ih) * in.w + iw]);
            }
          y[((n * o.c + c) * o.h + oh) * o.w + ow] = best;
        }
  if (out) *out = o;
  return y;
}

Values global_avg_pool(const Values& x, Shape in) {
  Values y(static_cast<std::size_t>(in.n * in.c), 0.0);
  for (std::int64_t i = 0; i < in.n * in.c; ++i) {
    for (std::int64_t p = 0; p < in.h * in.w; ++p) y[i] += x[i * in.h * in.w + p];
    y[i] /= double(in.h * in.w);
  }
  return y;
}

Values linear(const Values& x, std::int64_t batch, const Values& w, const Values& b,
              std::int64_t out_features) {
  const std::int64_t in_features = std::int64_t(x.size()) / batch;
  Values y(static_cast<std::size_t>(batch * out_features));
  for (std::int64_t n = 0; n < batch; ++n)
    for (std::int64_t o = 0; o < out_features; ++o) {
      double sum = b[o];
      for (std::int64_t i = 0; i < in_features; ++i) sum += x[n * in_features + i] * w[o * in_features + i];
      y[n * out_features + o] = sum;
    }
  return y;
}

Values relu(const Values& x) {
  Values y(x.size());
  std::transform(x.begin(), x.end(), y.begin(), [](double v) { return std::max(v, 0.0); });
  return y;
}

Values add_relu(const Values& a, const Values& b) {
  Values y(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) y[i] = std::max(a[i] + b[i], 0.0);
  return y;
}

}  // namespace naive
