// The tolerance options `parity diff` and `parity compare` share: --rtol,
// --atol and the repeatable --tol GLOB=RTOL,ATOL.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "parity/analyzer/weights/tolerance_rules.hpp"

namespace parity::cli {

struct ToleranceFlags {
  std::optional<double> rtol, atol;
  std::vector<std::string> overrides;  // GLOB=RTOL,ATOL as given

  // Throws parity::Error naming a malformed --tol.
  analyzer::ToleranceRules rules() const;
};

// `what` names what a glob is matched against in the help text.
void add_tolerance_options(CLI::App& command, ToleranceFlags& flags, const std::string& what);

}  // namespace parity::cli
