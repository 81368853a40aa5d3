#include "parity/analyzer/profile/units.hpp"

#include <cmath>
#include <cstdio>

namespace parity::analyzer {
namespace {

std::string printf_string(const char* format, double value, const char* unit) {
  char text[64];
  std::snprintf(text, sizeof text, format, value, unit);
  return text;
}

// Three significant digits in the unit that keeps the number in [1, 1000).
std::string scaled(double value, const char* const units[], int count, double step) {
  int unit = 0;
  while (unit + 1 < count && std::fabs(value) >= step) {
    value /= step;
    ++unit;
  }
  const char* format = std::fabs(value) >= 100 || unit == 0 ? "%.0f %s"
                       : std::fabs(value) >= 10             ? "%.1f %s"
                                                            : "%.2f %s";
  return printf_string(format, value, units[unit]);
}

}  // namespace

std::string format_duration(double ns) {
  static const char* const units[] = {"ns", "us", "ms", "s"};
  if (std::fabs(ns) >= 1e9) return printf_string("%.2f %s", ns / 1e9, "s");
  return scaled(ns, units, 4, 1000);
}

std::string format_percent(double fraction) { return printf_string("%.1f%s", fraction * 100, "%"); }

std::string format_bytes(double bytes) {
  static const char* const units[] = {"B", "kB", "MB", "GB", "TB"};
  return scaled(bytes, units, 5, 1000);
}

std::string format_gbps(double gb_per_s) { return printf_string("%.2f %s", gb_per_s, "GB/s"); }

}  // namespace parity::analyzer
