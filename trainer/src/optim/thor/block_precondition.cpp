#include "block_precondition.hpp"

#include <dnnl.h>

#include "parity/core/error.hpp"

namespace parity::trainer::thor {
namespace {

void sgemm(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
           const float* b, std::int64_t ldb, float* c, std::int64_t ldc) {
  if (dnnl_sgemm('N', 'N', m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc) != dnnl_success)
    throw Error("oneDNN's sgemm failed preconditioning a gradient", "THOR");
}

}  // namespace

void precondition(std::span<float> grad, const BlockDiagonal& g_inverse, const BlockDiagonal& a_inverse,
                  std::vector<float>& scratch) {
  const std::int64_t rows = g_inverse.dim(), columns = a_inverse.dim();
  if (static_cast<std::int64_t>(grad.size()) != rows * columns)
    throw Error("a gradient of " + std::to_string(grad.size()) + " values does not fit its " +
                    std::to_string(rows) + "x" + std::to_string(columns) + " THOR factors",
                "THOR");
  scratch.resize(grad.size());
  // scratch = G^-1 * grad, one band of rows per block of G^-1.
  for (std::int64_t b = 0; b < g_inverse.blocks(); ++b) {
    const std::int64_t start = g_inverse.block_start(b), size = g_inverse.block_size(b);
    sgemm(size, columns, size, g_inverse.block(b).data(), size, grad.data() + start * columns,
          columns, scratch.data() + start * columns, columns);
  }
  // grad = scratch * A^-1, one band of columns per block of A^-1.
  for (std::int64_t b = 0; b < a_inverse.blocks(); ++b) {
    const std::int64_t start = a_inverse.block_start(b), size = a_inverse.block_size(b);
    sgemm(rows, size, size, scratch.data() + start, columns, a_inverse.block(b).data(), size,
          grad.data() + start, columns);
  }
}

}  // namespace parity::trainer::thor
