// Distribution: the summary statistics the analyzer reports for any set of
// durations (a phase over steps, an operator over its calls).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace parity::analyzer {

struct Distribution {
  std::int64_t count = 0;
  double total_ns = 0, mean_ns = 0, median_ns = 0, p95_ns = 0, min_ns = 0, max_ns = 0;
  double cv = 0;  // coefficient of variation: standard deviation / mean (0 when the mean is 0)
};

// Percentiles interpolate linearly between the two nearest ranks (numpy's
// default), so a percentile of a few samples is not just one of them. The
// vector is reordered.
Distribution distribution_of(std::vector<std::int64_t>& values);
Distribution distribution_of(std::vector<double>& values);

// The q-quantile (0..1) of values sorted ascending.
double sorted_quantile(const std::vector<double>& sorted, double q);

nlohmann::json to_json(const Distribution& distribution);

}  // namespace parity::analyzer
