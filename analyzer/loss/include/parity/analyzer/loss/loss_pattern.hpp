// A user's description of a loss line, `Iter {step}: loss={loss}`, friendlier
// than a regular expression. Placeholders: {loss} (required: a decimal
// number, with exponent, or nan/inf), {step} and {epoch} (whole numbers) and
// {*} (any text). A space matches any run of spaces and tabs; `{{` and `}}`
// are literal braces; everything else is literal. The pattern may match
// anywhere in a line. docs/loss-compare.md describes it for users.
#pragma once

#include <optional>
#include <regex>
#include <string>

#include "parity/analyzer/loss/log_records.hpp"

namespace parity::analyzer {

class LossPattern {
 public:
  // Throws parity::Error for a pattern without {loss}, with an unknown or
  // repeated placeholder, or an unmatched brace; `option` names where it was
  // given (--pattern-a).
  LossPattern(const std::string& pattern, const std::string& option);

  const std::string& text() const { return text_; }
  // The record a line holds; nullopt when the pattern does not match it.
  std::optional<LogRecord> match(const std::string& line) const;

 private:
  std::string text_;
  std::regex regex_;
  int loss_group_ = 0, step_group_ = 0, epoch_group_ = 0;  // 0: not in the pattern
};

}  // namespace parity::analyzer
