// Naive float64 forward passes of the trainer's layers, written from their
// definitions: the references that the backend's forward is checked against
// and whose finite differences check its backward.
#pragma once

#include <cstdint>
#include <vector>

namespace naive {

using Values = std::vector<double>;

struct Shape {
  std::int64_t n, c, h, w;
  std::int64_t count() const { return n * c * h * w; }
};

// padding_end: the padding after the bottom and right edges (-1: `padding`).
Values conv2d(const Values& x, Shape in, const Values& w, std::int64_t out_channels,
              std::int64_t kernel, std::int64_t stride, std::int64_t padding, Shape* out,
              std::int64_t padding_end = -1);
// Training-mode batch norm (batch statistics, biased variance), then ReLU if asked.
Values batch_norm(const Values& x, Shape in, const Values& gamma, const Values& beta, double eps,
                  bool relu);
Values max_pool(const Values& x, Shape in, std::int64_t kernel, std::int64_t stride,
                std::int64_t padding, Shape* out);
Values global_avg_pool(const Values& x, Shape in);
// x: [N, in], w: [out, in], b: [out]
Values linear(const Values& x, std::int64_t batch, const Values& w, const Values& b,
              std::int64_t out_features);
Values relu(const Values& x);
Values add_relu(const Values& a, const Values& b);

}  // namespace naive
