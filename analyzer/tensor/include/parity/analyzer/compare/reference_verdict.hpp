// Whose error is it: with a third run R in float64 (dump_reference.py
// --float64 from the same weights and batch), each side of a pair is held to
// R, and A passes where its error is within a factor of B's (msprobe's API
// checker's rule: mean ratio <= 2, max ratio <= 10). Two correct float32
// runs differ by rounding that compounds from layer to layer, so a plain
// tolerance either calls that a bug or lets a real one through; against R,
// rounding is what B (the benchmark run) shows too, and a bug is what A
// shows beyond it.
#pragma once

#include "parity/importers/dump/dump_manifest.hpp"
#include "parity/importers/named_tensor.hpp"

namespace parity::analyzer {

struct ReferenceLimits {
  double mean_ratio = 2;  // A's mean |A - R| at most this times B's
  double max_ratio = 10;  // A's max |A - R| at most this times B's
};

struct ReferenceErrors {
  double mean_a = 0, max_a = 0;  // mean and max |A - R|
  double mean_b = 0, max_b = 0;  // mean and max |B - R|
  // A's over B's, each error first raised to float32's rounding of R (its
  // unit roundoff times R's root mean square, or its largest magnitude), so
  // that an exact side, or both, is not a division by zero.
  double mean_ratio = 1, max_ratio = 1;
  // Both ratios within the limits (and finite); a tensor of fewer than 64
  // elements holds its mean ratio to the max ratio's limit.
  bool passed = true;
};

// `a`, `b` and `r` hold the same number of elements; `r_stats` is R's
// record's statistics (the scale of the float32 rounding floor).
ReferenceErrors reference_errors(const importers::NamedTensor& a, const importers::NamedTensor& b,
                                 const importers::NamedTensor& r,
                                 const importers::TensorStats& r_stats,
                                 const ReferenceLimits& limits);

// "reference: A's error 3.1x B's on average (limit 2x), 14x at most (limit 10x)".
std::string reference_failure(const ReferenceErrors& errors, const ReferenceLimits& limits);

}  // namespace parity::analyzer
