#include "tolerance_options.hpp"

namespace parity::cli {

analyzer::ToleranceRules ToleranceFlags::rules() const {
  analyzer::ToleranceRules rules;
  rules.rtol = rtol;
  rules.atol = atol;
  for (const std::string& text : overrides)
    rules.overrides.push_back(analyzer::parse_tolerance_override(text));
  return rules;
}

void add_tolerance_options(CLI::App& command, ToleranceFlags& flags, const std::string& what) {
  command.add_option("--rtol", flags.rtol, "Relative tolerance for every pair (default: by dtype)");
  command.add_option("--atol", flags.atol, "Absolute tolerance for every pair (default: by dtype)");
  command.add_option("--tol", flags.overrides,
                     "GLOB=RTOL,ATOL: tolerances for " + what +
                         " whose A or B name matches GLOB (repeatable; the first match wins)");
}

}  // namespace parity::cli
