// ReLU as PyTorch computes it, for every reference op that applies one:
// NaN passes through forward, and the gradient flows where the output is
// positive (threshold_backward on the output).
#pragma once

#include <cmath>

namespace parity::trainer::reference {

inline double relu(double x) { return x > 0 || std::isnan(x) ? x : 0.0; }
inline double relu_gradient(double output, double grad) { return output > 0 ? grad : 0.0; }

}  // namespace parity::trainer::reference
