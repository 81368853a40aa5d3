#include "parity/analyzer/compare/reference_verdict.hpp"

#include <algorithm>
#include <cmath>

#include "parity/analyzer/report_format.hpp"
#include "parity/analyzer/weights/tensor_diff.hpp"

namespace parity::analyzer {
namespace {

constexpr double kFloat32Roundoff = 0x1p-24;
constexpr std::int64_t kFewElements = 64;

double ratio(double a, double b, double floor) {
  return std::max(a, floor) / std::max(b, floor);
}

}  // namespace

ReferenceErrors reference_errors(const importers::NamedTensor& a, const importers::NamedTensor& b,
                                 const importers::NamedTensor& r,
                                 const importers::TensorStats& r_stats,
                                 const ReferenceLimits& limits) {
  const TensorMetrics against_a = compare_tensors(a, r, Tolerance{}, /*equal_nan=*/true);
  const TensorMetrics against_b = compare_tensors(b, r, Tolerance{}, /*equal_nan=*/true);
  ReferenceErrors errors;
  errors.mean_a = against_a.mean_abs_diff;
  errors.max_a = against_a.max_abs_diff;
  errors.mean_b = against_b.mean_abs_diff;
  errors.max_b = against_b.max_abs_diff;
  const double elements = static_cast<double>(std::max<std::int64_t>(1, against_a.elements));
  const double rms = r_stats.l2 / std::sqrt(elements);
  const double largest = std::max(std::abs(r_stats.min.value_or(0)), std::abs(r_stats.max.value_or(0)));
  const double tiny = 1e-300;  // an all-zero R: equal errors still give 1
  errors.mean_ratio = ratio(errors.mean_a, errors.mean_b, std::max(kFloat32Roundoff * rms, tiny));
  errors.max_ratio = ratio(errors.max_a, errors.max_b, std::max(kFloat32Roundoff * largest, tiny));
  // A NaN or Inf where R has a number on one side only is no rounding.
  const bool finite = against_a.nonfinite_mismatches <= against_b.nonfinite_mismatches &&
                      std::isfinite(errors.mean_ratio) && std::isfinite(errors.max_ratio);
  // The mean of a few elements is as much one draw of the rounding as their
  // maximum is (a scalar loss: the two are the same number), so a small
  // tensor's mean ratio is held to the max ratio's limit.
  const double mean_limit =
      against_a.elements < kFewElements ? std::max(limits.mean_ratio, limits.max_ratio)
                                        : limits.mean_ratio;
  errors.passed = finite && errors.mean_ratio <= mean_limit && errors.max_ratio <= limits.max_ratio;
  return errors;
}

std::string reference_failure(const ReferenceErrors& errors, const ReferenceLimits& limits) {
  return "reference: A's error " + format_number(errors.mean_ratio) + "x B's on average (limit " +
         format_number(limits.mean_ratio) + "x), " + format_number(errors.max_ratio) +
         "x at most (limit " + format_number(limits.max_ratio) + "x); mean |A-R| " +
         format_number(errors.mean_a) + ", |B-R| " + format_number(errors.mean_b);
}

}  // namespace parity::analyzer
