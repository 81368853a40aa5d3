#include "damped_inverse.hpp"

#include <string>
#include <vector>

#include "parity/core/error.hpp"

// LAPACK (Debian's liblapack3); column-major, which a symmetric block ignores.
extern "C" {
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info);
void dpotri_(const char* uplo, const int* n, double* a, const int* lda, int* info);
}

namespace parity::trainer::thor {

BlockDiagonal damped_inverse(const BlockDiagonal& factor, double damping, double scale,
                             std::string_view layer) {
  BlockDiagonal inverse(factor.dim());
  std::vector<double> work;
  for (std::int64_t b = 0; b < factor.blocks(); ++b) {
    const int n = static_cast<int>(factor.block_size(b));
    const std::span<const float> in = factor.block(b);
    work.assign(in.begin(), in.end());
    for (int i = 0; i < n; ++i) work[i * n + i] += damping;
    int info = 0;
    const char lower = 'L';
    dpotrf_(&lower, &n, work.data(), &n, &info);
    if (info == 0) dpotri_(&lower, &n, work.data(), &n, &info);
    if (info != 0)
      throw Error("the damped curvature factor of " + std::string(layer) + " (block " +
                      std::to_string(b) + ", " + std::to_string(n) + " rows) is not positive definite",
                  "THOR",
                  "a factor held NaN or Inf (check the loss and loss_scale), or damping_init is "
                  "not positive");
    // dpotri leaves the inverse in the lower triangle (column-major): mirror it.
    const std::span<float> out = inverse.block(b);
    for (int col = 0; col < n; ++col)
      for (int row = col; row < n; ++row) {
        const float value = static_cast<float>(scale * work[col * n + row]);
        out[row * n + col] = value;
        out[col * n + row] = value;
      }
  }
  return inverse;
}

}  // namespace parity::trainer::thor
