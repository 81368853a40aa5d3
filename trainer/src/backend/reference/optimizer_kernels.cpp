#include "optimizer_kernels.hpp"

#include <cmath>
#include <cstdint>

namespace parity::trainer::reference {

void sgd_update(std::span<double> w, std::span<const double> grad, std::span<double> buf,
                const BasicSgdCoefficients<double>& c) {
  const auto n = static_cast<std::int64_t>(w.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) w[i] = c.update(w[i], grad[i], buf[i]);
}

bool all_finite(std::span<const double> values) {
  const auto n = static_cast<std::int64_t>(values.size());
  std::int64_t non_finite = 0;
#pragma omp parallel for schedule(static) reduction(+ : non_finite)
  for (std::int64_t i = 0; i < n; ++i) non_finite += !std::isfinite(values[i]);
  return non_finite == 0;
}

}  // namespace parity::trainer::reference
