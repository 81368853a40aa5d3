// CurvatureTap: what reads the inputs and the output gradients of a network's
// weighted layers (convolutions and the classifier), the raw material of a
// second-order optimizer's curvature factors (THOR's Kronecker factors,
// optim/thor.hpp). A layer calls it only in training steps the tap says it
// collects; a model without one pays nothing.
#pragma once

#include <cstdint>

#include "parity/trainer/backend/backend.hpp"
#include "parity/trainer/nn/weight_geometry.hpp"

namespace parity::trainer {

struct Parameter;

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
