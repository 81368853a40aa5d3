// The CPU backend's SGD loop over one parameter in its own layout.
#pragma once

#include <cstddef>

#include "../shared/sgd_step_coefficients.hpp"
#include "parity/trainer/backend/backend.hpp"

namespace parity::trainer::cpu {

// w, g and buf hold `count` elements in one layout.
void sgd_update_plain(float* w, const float* g, float* buf, std::size_t count,
                      const SgdCoefficients& c);

}  // namespace parity::trainer::cpu
