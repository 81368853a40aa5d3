#include "sgd_kernel.hpp"

#include <cmath>
#include <cstdint>

namespace parity::trainer::cpu {

void sgd_update_plain(float* w, const float* g, float* buf, std::size_t count,
                      const SgdCoefficients& c) {
  const auto n = static_cast<std::int64_t>(count);
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < n; ++i) w[i] = c.update(w[i], g[i], buf[i]);
}

bool all_finite(const float* values, std::size_t count) {
  const auto n = static_cast<std::int64_t>(count);
  std::int64_t non_finite = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : non_finite)
  for (std::int64_t i = 0; i < n; ++i) non_finite += !std::isfinite(values[i]);
  return non_finite == 0;
}

}  // namespace parity::trainer::cpu
