// SgdStep (double, as the optimizer computes it) to the float coefficients
// the update kernels use.
#pragma once

#include "parity/trainer/backend/backend.hpp"
#include "sgd_coefficients.hpp"

namespace parity::trainer {

inline SgdCoefficients sgd_coefficients(const SgdStep& s) {
  return {float(s.lr),
          float(s.momentum),
          float(1.0 - s.dampening),
          float(s.weight_decay),
          float(1.0 / s.loss_scale),
          s.nesterov,
          s.first};
}

}  // namespace parity::trainer
