// The CPU backend's optimizer loops over one parameter in its own layout:
// the SGD update and the loss scaler's overflow check.
#pragma once

#include <cstddef>

#include "../shared/sgd_step_coefficients.hpp"
#include "parity/trainer/backend/backend.hpp"

namespace parity::trainer::cpu {

// w, g and buf hold `count` elements in one layout.
void sgd_update_plain(float* w, const float* g, float* buf, std::size_t count,
                      const SgdCoefficients& c);

// Whether all `count` values are finite (no Inf, no NaN).
bool all_finite(const float* values, std::size_t count);

}  // namespace parity::trainer::cpu
