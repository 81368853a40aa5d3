#include "parity/importers/dump/tensor_stats.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace parity::importers {
namespace {

// One pass. Sums are taken around the first finite value (a shift that keeps
// the variance exact when the mean is large against the spread).
template <class T>
TensorStats stats_of(std::span<const T> values) {
  TensorStats stats;
  std::int64_t count = 0;
  double shift = 0, sum = 0, sum_squares = 0, l2_squares = 0;
  double low = 0, high = 0;
  for (const T element : values) {
    const double x = static_cast<double>(element);
    if (std::isnan(x)) {
      ++stats.nan;
      continue;
    }
    if (std::isinf(x)) {
      ++stats.inf;
      continue;
    }
    if (count == 0) shift = low = high = x;
    ++count;
    const double d = x - shift;
    sum += d;
    sum_squares += d * d;
    l2_squares += x * x;
    low = std::min(low, x);
    high = std::max(high, x);
  }
  stats.l2 = std::sqrt(l2_squares);
  if (count > 0) {
    const double n = static_cast<double>(count);
    const double mean_shifted = sum / n;
    stats.min = low;
    stats.max = high;
    stats.mean = shift + mean_shifted;
    stats.std = std::sqrt(std::max(0.0, sum_squares / n - mean_shifted * mean_shifted));
  }
  return stats;
}

}  // namespace

TensorStats compute_stats(std::span<const float> values) { return stats_of(values); }
TensorStats compute_stats(std::span<const double> values) { return stats_of(values); }
TensorStats compute_stats(std::span<const std::int64_t> values) { return stats_of(values); }

TensorStats compute_stats(const NamedTensor& tensor) {
  if (tensor.dtype == DType::kFloat32) {
    tensor.check();
    return stats_of(std::span(reinterpret_cast<const float*>(tensor.data.data()),
                              tensor.data.size() / sizeof(float)));
  }
  const std::vector<double> values = tensor.to_double();
  return stats_of(std::span<const double>(values));
}

}  // namespace parity::importers
