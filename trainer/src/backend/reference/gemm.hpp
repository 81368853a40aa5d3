// The reference backend's one matrix product, in float64: convolutions (after
// im2col) and the classifier are all C = op(A) op(B). A matrix is read through
// strides, so a transposed operand is the same data with its strides swapped.
#pragma once

#include <cstdint>

namespace parity::trainer::reference {

// Element (row, column) is data[row * row_stride + column * column_stride].
struct MatrixView {
  const double* data;
  std::int64_t row_stride, column_stride;

  MatrixView transposed() const { return {data, column_stride, row_stride}; }
};
// A row-major rows x columns matrix.
inline MatrixView row_major(const double* data, std::int64_t columns) { return {data, columns, 1}; }

// c[m, n] = (accumulate ? c[m, n] : 0) + sum over k of a(m, k) * b(k, n), for
// an m x k matrix a, a k x n matrix b and a row-major c with row stride ldc.
// Cache-blocked (packed panels, a 4 x 4 register tile), the tiles shared out
// over OpenMP threads.
void gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixView a, MatrixView b, double* c,
          std::int64_t ldc, bool accumulate);

}  // namespace parity::trainer::reference
