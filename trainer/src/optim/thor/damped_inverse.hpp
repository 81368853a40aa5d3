// THOR's inverse of a damped Kronecker factor, block by block:
// scale * (block + damping * I)^-1 for each diagonal block, through a
// Cholesky factorisation in float64 (LAPACK's dpotrf and dpotri; MindSpore's
// GPU path: CholeskyTrsm and X^T X). MindSpore pads the last block to 128
// with the identity, whose inverse is the identity again, so inverting the
// smaller block alone gives the same numbers.
#pragma once

#include <string_view>

#include "block_diagonal.hpp"

namespace parity::trainer::thor {

// Throws parity::Error naming `layer` when a damped block is not positive
// definite (a factor holding NaN or Inf, or a negative damping).
BlockDiagonal damped_inverse(const BlockDiagonal& factor, double damping, double scale,
                             std::string_view layer);

}  // namespace parity::trainer::thor
