// Which tolerance a pair of tensors is compared under, as `parity diff` and
// `parity compare` take it from the command line: the dtype defaults
// (tensor_diff.hpp), replaced by --rtol/--atol for pairs with a floating
// side (integer pairs stay exact), and per name by --tol GLOB=RTOL,ATOL
// rules, the first matching rule winning.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parity/analyzer/weights/tensor_diff.hpp"

namespace parity::analyzer {

struct ToleranceOverride {
  std::string glob;  // fnmatch pattern, tried on the A name and on the B name
  Tolerance tolerance;
};

struct ToleranceRules {
  std::optional<double> rtol, atol;          // replace the floating dtypes' defaults
  std::vector<ToleranceOverride> overrides;  // first match wins, before rtol/atol

  // The tolerance for a pair named `name_a` and `name_b` (an empty name
  // matches no glob) of dtypes `a` and `b`.
  Tolerance pick(const std::string& name_a, const std::string& name_b, DType a, DType b) const;
};

// "GLOB=RTOL,ATOL" as given to --tol; throws parity::Error naming the text.
ToleranceOverride parse_tolerance_override(std::string_view text);

}  // namespace parity::analyzer
