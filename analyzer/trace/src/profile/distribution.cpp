#include "parity/analyzer/profile/distribution.hpp"

#include <algorithm>
#include <cmath>

namespace parity::analyzer {

double sorted_quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

Distribution distribution_of(std::vector<double>& values) {
  Distribution d;
  d.count = static_cast<std::int64_t>(values.size());
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (const double v : values) sum += v;
  d.total_ns = sum;
  d.mean_ns = sum / static_cast<double>(values.size());
  double squares = 0;
  for (const double v : values) squares += (v - d.mean_ns) * (v - d.mean_ns);
  const double stddev = std::sqrt(squares / static_cast<double>(values.size()));
  d.cv = d.mean_ns > 0 ? stddev / d.mean_ns : 0;
  d.median_ns = sorted_quantile(values, 0.5);
  d.p95_ns = sorted_quantile(values, 0.95);
  d.min_ns = values.front();
  d.max_ns = values.back();
  return d;
}

Distribution distribution_of(std::vector<std::int64_t>& values) {
  std::vector<double> as_double(values.begin(), values.end());
  return distribution_of(as_double);
}

nlohmann::json to_json(const Distribution& d) {
  return {{"count", d.count},     {"total_ns", d.total_ns},
          {"mean_ns", d.mean_ns}, {"median_ns", d.median_ns},
          {"p95_ns", d.p95_ns},   {"min_ns", d.min_ns},
          {"max_ns", d.max_ns},   {"cv", d.cv}};
}

}  // namespace parity::analyzer
