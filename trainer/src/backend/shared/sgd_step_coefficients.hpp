// SgdStep (double, as the optimizer computes it) to the coefficients the
// update kernels use: float for float32 parameters, double for the float64
// reference backend's.
#pragma once

#include "parity/trainer/backend/backend.hpp"
#include "sgd_coefficients.hpp"

namespace parity::trainer {

template <class Real = float>
BasicSgdCoefficients<Real> sgd_coefficients(const SgdStep& s) {
  return {Real(s.lr),
          Real(s.momentum),
          Real(1.0 - s.dampening),
          Real(s.weight_decay),
          Real(1.0 / s.loss_scale),
          s.nesterov,
          s.first};
}

}  // namespace parity::trainer
