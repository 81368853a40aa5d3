#include "parity/gui/compare/error_histogram.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace parity::gui {
namespace {

// floor(log10(x)) for x > 0, exact at powers of ten (log10 may round 1e-3
// to -2.9999999999999996).
int decade_of(double x) {
  int d = static_cast<int>(std::floor(std::log10(x)));
  if (std::pow(10.0, d + 1) <= x) ++d;
  if (std::pow(10.0, d) > x) --d;
  return d;
}

QString power_of_ten(int exponent) {
  return QStringLiteral("1e%1%2")
      .arg(exponent < 0 ? QLatin1Char('-') : QLatin1Char('+'))
      .arg(std::abs(exponent), 2, 10, QLatin1Char('0'));
}

}  // namespace

std::size_t ErrorHistogram::total() const {
  return std::accumulate(decades.begin(), decades.end(), exact + non_finite);
}

std::size_t ErrorHistogram::count(int bar) const {
  if (bar <= 0) return exact;
  if (bar > static_cast<int>(decades.size())) return non_finite;
  return decades[static_cast<std::size_t>(bar - 1)];
}

QString ErrorHistogram::label(int bar) const {
  if (bar <= 0) return QStringLiteral("0");
  if (bar > static_cast<int>(decades.size())) return QStringLiteral("nan/inf");
  const int decade = first_decade + bar - 1;
  if (bar == 1 && clamped) return QLatin1Char('<') + power_of_ten(decade + 1);
  return power_of_ten(decade);
}

int ErrorHistogram::bar_of(double error) const {
  if (!std::isfinite(error)) return bars() - 1;
  if (error <= 0 || decades.empty()) return 0;
  const int last = static_cast<int>(decades.size()) - 1;
  return 1 + std::clamp(decade_of(error) - first_decade, 0, last);
}

ErrorHistogram error_histogram(std::span<const double> errors) {
  ErrorHistogram histogram;
  int low = 0, high = 0;
  bool any = false;
  for (const double e : errors) {
    if (!std::isfinite(e) || e <= 0) continue;
    const int d = decade_of(e);
    low = any ? std::min(low, d) : d;
    high = any ? std::max(high, d) : d;
    any = true;
  }
  if (any) {
    histogram.clamped = high - low + 1 > ErrorHistogram::kMaxDecades;
    histogram.first_decade = histogram.clamped ? high - ErrorHistogram::kMaxDecades + 1 : low;
    histogram.decades.assign(static_cast<std::size_t>(high - histogram.first_decade + 1), 0);
  }
  for (const double e : errors) {
    const int bar = histogram.bar_of(e);
    if (bar == 0)
      ++histogram.exact;
    else if (bar == histogram.bars() - 1)
      ++histogram.non_finite;
    else
      ++histogram.decades[static_cast<std::size_t>(bar - 1)];
  }
  return histogram;
}

}  // namespace parity::gui
