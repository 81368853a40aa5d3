// Element-wise comparison of two tensors of the same shape, in float64,
// with torch.testing.assert_close's rule: |a - b| <= atol + rtol * |b|
// (B is the reference), NaN never close (unless equal_nan and NaN on both
// sides), equal infinities close. Also the distance in units in the last
// place and where the non-finite elements of the two sides disagree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "parity/core/dtype.hpp"
#include "parity/importers/named_tensor.hpp"

namespace parity::analyzer {

struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

// "rtol=1.3e-06 atol=1e-05", for reports.
std::string to_string(const Tolerance& tolerance);

// torch.testing.assert_close's defaults for a dtype (float16 1e-3/1e-5,
// bfloat16 1.6e-2/1e-5, float32 1.3e-6/1e-5, float64 1e-7/1e-7, exact for
// integers and bool); for two dtypes, the looser of the two.
Tolerance default_tolerance(DType dtype);
Tolerance default_tolerance(DType a, DType b);

struct TensorMetrics {
  std::int64_t elements = 0;
  std::int64_t equal_elements = 0;    // a == b exactly
  std::int64_t within_tolerance = 0;  // |a - b| <= atol + rtol * |b|
  std::int64_t nan_elements = 0;      // a or b is NaN
  double max_abs_diff = 0;
  std::int64_t max_abs_index = -1;  // flat (C-order) index; -1 when no element differs
  double max_rel_diff = 0;          // |a - b| / |b|; infinite where b is 0 and a is not
  std::int64_t max_rel_index = -1;
  double mean_abs_diff = 0;
  double cosine_similarity = 1;  // 1 when both are all zeros, 0 when only one is
  // Elements NaN or infinite on one side only, or different non-finite values
  // (NaN against Inf, +Inf against -Inf), and the first of them.
  std::int64_t nonfinite_mismatches = 0;
  std::int64_t first_nonfinite_mismatch = -1;
  // Over the elements finite on both sides, when both dtypes are floating:
  // the largest distance in ULPs of the coarser dtype (float32 ULPs for
  // float32 against float64), each value rounded to that dtype first.
  std::optional<std::uint64_t> max_ulp_diff;

  bool all_equal() const { return equal_elements == elements; }
  bool all_close() const { return within_tolerance == elements; }
  double share_within_tolerance() const;
};

// Throws parity::Error when the element counts differ. With `equal_nan`, NaN
// on both sides counts as equal (torch.testing.assert_close's equal_nan).
TensorMetrics compare_tensors(const importers::NamedTensor& a, const importers::NamedTensor& b,
                              const Tolerance& tolerance, bool equal_nan = false);

}  // namespace parity::analyzer
