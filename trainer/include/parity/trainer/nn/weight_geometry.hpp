// How a layer's weight meets its input: what turns the input into the
// columns the weight multiplies (im2col for a convolution), as a
// second-order optimizer's curvature factors need it (nn/curvature_tap.hpp).
#pragma once

#include <cstdint>

namespace parity::trainer {

struct Conv2dSpec;

struct WeightGeometry {
  enum Kind { kConv, kLinear };
  Kind kind = kLinear;
  std::int64_t kernel = 1, stride = 1, padding = 0, padding_end = 0;

  static WeightGeometry conv(const Conv2dSpec& spec);  // nn/layer.cpp
  static WeightGeometry linear() { return {}; }

  // A convolution's output size along a dimension of `input` pixels.
  std::int64_t output_size(std::int64_t input) const {
    return (input + padding + padding_end - kernel) / stride + 1;
  }
};

}  // namespace parity::trainer
