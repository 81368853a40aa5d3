// THOR's update of one weight's gradient: grad = G^-1 * grad * A^-1 with
// both inverses block-diagonal (MindSpore's UpdateThorGradient), the weight
// read as a (out_channels) x (in_channels * kernel^2) matrix.
#pragma once

#include <span>
#include <vector>

#include "block_diagonal.hpp"

namespace parity::trainer::thor {

// `grad` is g_inverse.dim() rows of a_inverse.dim() floats, row-major;
// `scratch` is reused between calls.
void precondition(std::span<float> grad, const BlockDiagonal& g_inverse, const BlockDiagonal& a_inverse,
                  std::vector<float>& scratch);

}  // namespace parity::trainer::thor
