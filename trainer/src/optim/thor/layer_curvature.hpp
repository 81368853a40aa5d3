// What the preconditioner knows of one THOR layer (a convolution or the
// classifier): its weight, its shape as the engine reads it, and what the
// collecting step saw of it. The statistics and inverses themselves are the
// engine's (optim/kronecker_engine.hpp).
#pragma once

#include <cstdint>

#include "parity/trainer/nn/module.hpp"
#include "parity/trainer/optim/kronecker_engine.hpp"

namespace parity::trainer::thor {

struct LayerCurvature {
  const Parameter* weight = nullptr;
  KroneckerLayerShape shape;    // the weight as out x (in * kernel^2)
  std::int64_t batch = 0;       // N of the collecting step
  std::int64_t out_pixels = 1;  // a convolution's output height x width
  bool has_input = false, has_output_grad = false;  // collected this refresh
};

}  // namespace parity::trainer::thor
