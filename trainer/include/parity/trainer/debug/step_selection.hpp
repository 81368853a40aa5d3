// Which training steps a dump or a trace covers: "all", "3", "0-2", or a
// comma list of those ("0-2,10"), as `--dump-steps` and `--trace-steps` take them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parity::trainer {

class StepSelection {
 public:
  StepSelection() = default;  // every step
  // Throws parity::Error quoting the text, the option and the valid forms.
  static StepSelection parse(std::string_view text, std::string_view option = "--dump-steps");

  bool contains(std::int64_t step) const;
  // The last step selected, or -1 for "all".
  std::int64_t last() const;
  std::string text() const;

 private:
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges_;  // inclusive; empty: all
};

}  // namespace parity::trainer
