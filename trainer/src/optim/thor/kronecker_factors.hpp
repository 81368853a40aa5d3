// The host arithmetic of THOR's Kronecker factors (docs/thor.md, MindSpore's
// Conv2dThor and DenseThor on GPU): batch means, im2col, and the diagonal
// blocks of Gram matrices, products through oneDNN's sgemm.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "block_diagonal.hpp"
#include "parity/trainer/nn/curvature_tap.hpp"

namespace parity::trainer::thor {

// The mean over the first dimension of `values`, `rows` rows of equal length.
std::vector<float> batch_mean(std::span<const float> values, std::int64_t rows);

// `values` (rows x columns, row-major) transposed.
std::vector<float> transpose(std::span<const float> values, std::int64_t rows, std::int64_t columns);

// The columns a convolution multiplies its weight by, for one image
// [channels, height, width]: rows in the weight's (channel, kernel row,
// kernel column) order, one column per output pixel, zero where the kernel
// hangs over the padding. Returns (channels * kernel^2) x (out_h * out_w).
std::vector<float> im2col(std::span<const float> image, std::int64_t channels, std::int64_t height,
                          std::int64_t width, const WeightGeometry& geometry);

// The diagonal blocks of alpha * M * M^T, M being `dim` rows of `length`
// floats, row-major.
BlockDiagonal gram_blocks(std::span<const float> m, std::int64_t dim, std::int64_t length, double alpha);

}  // namespace parity::trainer::thor
