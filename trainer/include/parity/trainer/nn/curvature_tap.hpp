// CurvatureTap: what reads the inputs and the output gradients of a network's
// weighted layers (convolutions and the classifier), the raw material of a
// second-order optimizer's curvature factors (THOR's Kronecker factors,
// optim/thor.hpp). A layer calls it only in training steps the tap says it
// collects; a model without one pays nothing.
#pragma once

#include <cstdint>

#include "parity/trainer/backend/backend.hpp"

namespace parity::trainer {

struct Parameter;

// How a layer's weight meets its input: what turns the input into the
// columns the weight multiplies (im2col for a convolution).
struct WeightGeometry {
  enum Kind { kConv, kLinear };
  Kind kind = kLinear;
  std::int64_t kernel = 1, stride = 1, padding = 0, padding_end = 0;

  static WeightGeometry conv(const Conv2dSpec& spec) {
    return {kConv, spec.kernel, spec.stride, spec.padding, spec.end_padding()};
  }
  static WeightGeometry linear() { return {}; }
};

class CurvatureTap {
 public:
  virtual ~CurvatureTap() = default;
  // Whether this training step's layer inputs and output gradients are wanted.
  virtual bool collecting() const = 0;
  // The input of the layer whose weight is `weight`, in a training forward.
  virtual void layer_input(const Parameter& weight, const WeightGeometry& geometry,
                           const Tensor& input) = 0;
  // The gradient of the same layer's output (of the loss times its scale), in backward.
  virtual void layer_output_grad(const Parameter& weight, const Tensor& grad) = 0;
};

}  // namespace parity::trainer
