// ErrorHistogram: how the errors of the compared tensors of a weight diff or a
// tensor compare spread over orders of magnitude, for the chart under the
// table. One bar for the tensors that are identical (error 0), one per power
// of ten from the smallest error to the largest (at most kMaxDecades, the
// lowest bar then also holding everything below it), and one for errors that
// are NaN or infinite.
#pragma once

#include <QString>
#include <cstddef>
#include <span>
#include <vector>

namespace parity::gui {

struct ErrorHistogram {
  // Enough for float64 rounding (1e-16) up to order-one differences.
  static constexpr int kMaxDecades = 18;

  std::size_t exact = 0;
  // decades[k] counts errors in [10^(first_decade + k), 10^(first_decade + k + 1)).
  int first_decade = 0;
  std::vector<std::size_t> decades;
  // The lowest decade also holds the errors below it (there were more decades than kMaxDecades).
  bool clamped = false;
  std::size_t non_finite = 0;

  std::size_t total() const;
  // The bars, left to right: exact, the decades, non-finite.
  int bars() const { return static_cast<int>(decades.size()) + 2; }
  std::size_t count(int bar) const;
  // "0", "1e-07" or "1e+02" (the decade's lower edge; "<1e-06" for a clamped lowest
  // decade), "nan/inf".
  QString label(int bar) const;
  // The bar of an error the histogram was built from (any other error goes to
  // the nearest bar).
  int bar_of(double error) const;
};

// Errors are absolute differences: >= 0, or NaN/infinite.
ErrorHistogram error_histogram(std::span<const double> errors);

}  // namespace parity::gui
