#include "parity/analyzer/weights/tolerance_rules.hpp"

#include <fnmatch.h>

#include <stdexcept>

#include "parity/core/error.hpp"

namespace parity::analyzer {
namespace {

bool glob_matches(const std::string& glob, const std::string& name) {
  return !name.empty() && ::fnmatch(glob.c_str(), name.c_str(), 0) == 0;
}

}  // namespace

Tolerance ToleranceRules::pick(const std::string& name_a, const std::string& name_b, DType a,
                               DType b) const {
  for (const ToleranceOverride& rule : overrides)
    if (glob_matches(rule.glob, name_a) || glob_matches(rule.glob, name_b)) return rule.tolerance;
  Tolerance tolerance = default_tolerance(a, b);
  // Counts and labels are right or wrong: the tolerances of every pair are
  // about rounding, so they leave integer pairs exact (a --tol rule may not).
  if (!dtype_is_floating(a) && !dtype_is_floating(b)) return tolerance;
  if (rtol) tolerance.rtol = *rtol;
  if (atol) tolerance.atol = *atol;
  return tolerance;
}

ToleranceOverride parse_tolerance_override(std::string_view text) {
  const auto equals = text.rfind('=');
  const auto comma = text.rfind(',');
  const std::string where = "--tol " + std::string(text);
  if (equals == std::string_view::npos || comma == std::string_view::npos || comma < equals ||
      equals == 0)
    throw Error("expected GLOB=RTOL,ATOL", where, "for example --tol 'fc.*=1e-4,1e-5'");
  const auto number = [&](std::string_view part) {
    try {
      std::size_t used = 0;
      const double value = std::stod(std::string(part), &used);
      if (used != part.size() || !(value >= 0)) throw std::invalid_argument("");
      return value;
    } catch (const std::exception&) {
      throw Error("'" + std::string(part) + "' is not a tolerance (a number >= 0)", where);
    }
  };
  return {std::string(text.substr(0, equals)),
          {number(text.substr(equals + 1, comma - equals - 1)), number(text.substr(comma + 1))}};
}

}  // namespace parity::analyzer
