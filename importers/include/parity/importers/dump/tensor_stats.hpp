// Summary statistics of a tensor, as a dump's manifest records them: over the
// finite elements, min, max, mean, population std and L2 norm, and the counts
// of NaN and infinite elements. Computed in float64.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "parity/importers/named_tensor.hpp"

namespace parity::importers {

struct TensorStats {
  // Absent when no element is finite.
  std::optional<double> min, max, mean, std;
  double l2 = 0;
  std::int64_t nan = 0, inf = 0;

  bool finite() const { return nan == 0 && inf == 0; }
};

TensorStats compute_stats(std::span<const float> values);
TensorStats compute_stats(std::span<const double> values);
TensorStats compute_stats(std::span<const std::int64_t> values);
// Any dtype (integers and bool as their values).
TensorStats compute_stats(const NamedTensor& tensor);

}  // namespace parity::importers
