#include "gemm.hpp"

#include <algorithm>
#include <vector>

namespace parity::trainer::reference {
namespace {

// A register tile of kRows x kColumns accumulators (8 SSE2 registers, 4 AVX
// ones); the depth block keeps a packed panel of A in L1 and one of B in L2.
constexpr std::int64_t kRows = 4, kColumns = 4;
constexpr std::int64_t kDepthBlock = 256, kColumnBlock = 512;

std::int64_t panels(std::int64_t size, std::int64_t panel) { return (size + panel - 1) / panel; }

// Rows [0, m) and depth [k0, k0 + depth) of a, as panels of kRows rows, each
// depth-major (the kRows values of one k next to each other); rows past m
// are zero.
void pack_a(MatrixView a, std::int64_t m, std::int64_t k0, std::int64_t depth, double* packed) {
  const std::int64_t count = panels(m, kRows);
#pragma omp parallel for schedule(static)
  for (std::int64_t p = 0; p < count; ++p) {
    double* out = packed + p * kRows * depth;
    for (std::int64_t k = 0; k < depth; ++k)
      for (std::int64_t r = 0; r < kRows; ++r) {
        const std::int64_t row = p * kRows + r;
        *out++ = row < m ? a.data[row * a.row_stride + (k0 + k) * a.column_stride] : 0.0;
      }
  }
}

// Depth [k0, k0 + depth) and columns [n0, n0 + width) of b, as panels of
// kColumns columns, each depth-major; columns past the block are zero.
void pack_b(MatrixView b, std::int64_t k0, std::int64_t depth, std::int64_t n0,
            std::int64_t width, double* packed) {
  const std::int64_t count = panels(width, kColumns);
#pragma omp parallel for schedule(static)
  for (std::int64_t p = 0; p < count; ++p) {
    double* out = packed + p * kColumns * depth;
    for (std::int64_t k = 0; k < depth; ++k)
      for (std::int64_t j = 0; j < kColumns; ++j) {
        const std::int64_t column = p * kColumns + j;
        *out++ = column < width
                     ? b.data[(k0 + k) * b.row_stride + (n0 + column) * b.column_stride]
                     : 0.0;
      }
  }
}

// One register tile: c (rows x columns of it valid) gets the product of a
// packed A panel and a packed B panel over `depth`.
void tile(const double* a, const double* b, std::int64_t depth, double* c, std::int64_t ldc,
          std::int64_t rows, std::int64_t columns, bool add) {
  double sum[kRows][kColumns] = {};
  for (std::int64_t k = 0; k < depth; ++k, a += kRows, b += kColumns)
    for (std::int64_t r = 0; r < kRows; ++r)
      for (std::int64_t j = 0; j < kColumns; ++j) sum[r][j] += a[r] * b[j];
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < columns; ++j)
      c[r * ldc + j] = add ? c[r * ldc + j] + sum[r][j] : sum[r][j];
}

}  // namespace

void gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixView a, MatrixView b, double* c,
          std::int64_t ldc, bool accumulate) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    if (!accumulate)
      for (std::int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0);
    return;
  }
  const std::int64_t row_panels = panels(m, kRows);
  std::vector<double> packed_a(std::size_t(row_panels * kRows * std::min(k, kDepthBlock)));
  std::vector<double> packed_b(std::size_t(kColumnBlock * std::min(k, kDepthBlock)));
  for (std::int64_t k0 = 0; k0 < k; k0 += kDepthBlock) {
    const std::int64_t depth = std::min(kDepthBlock, k - k0);
    const bool add = accumulate || k0 > 0;
    pack_a(a, m, k0, depth, packed_a.data());
    for (std::int64_t n0 = 0; n0 < n; n0 += kColumnBlock) {
      const std::int64_t width = std::min(kColumnBlock, n - n0);
      pack_b(b, k0, depth, n0, width, packed_b.data());
      const std::int64_t column_panels = panels(width, kColumns);
#pragma omp parallel for collapse(2) schedule(static)
      for (std::int64_t i = 0; i < row_panels; ++i)
        for (std::int64_t j = 0; j < column_panels; ++j)
          tile(packed_a.data() + i * kRows * depth, packed_b.data() + j * kColumns * depth, depth,
               c + i * kRows * ldc + n0 + j * kColumns, ldc, std::min(kRows, m - i * kRows),
               std::min(kColumns, width - j * kColumns), add);
    }
  }
}

}  // namespace parity::trainer::reference
