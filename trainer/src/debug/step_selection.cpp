#include "parity/trainer/debug/step_selection.hpp"

#include <algorithm>
#include <charconv>

#include "parity/core/error.hpp"

namespace parity::trainer {
namespace {

std::int64_t parse_step(std::string_view digits, std::string_view whole, std::string_view option) {
  std::int64_t value = -1;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size() || value < 0)
    throw Error("'" + std::string(whole) + "' is not a step selection", std::string(option),
                "give all, a step (3), a range (0-2) or a comma list of those (0-2,10)");
  return value;
}

}  // namespace

StepSelection StepSelection::parse(std::string_view text, std::string_view option) {
  StepSelection selection;
  if (text == "all") return selection;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view part = text.substr(start, comma - start);
    const std::size_t dash = part.find('-');
    const std::int64_t first = parse_step(part.substr(0, dash), text, option);
    const std::int64_t last =
        dash == std::string_view::npos ? first : parse_step(part.substr(dash + 1), text, option);
    if (last < first)
      throw Error("the range " + std::string(part) + " ends before it starts", std::string(option),
                  "write the first step first: 0-2");
    selection.ranges_.emplace_back(first, last);
    start = comma + 1;
  }
  return selection;
}

bool StepSelection::contains(std::int64_t step) const {
  if (ranges_.empty()) return true;
  return std::any_of(ranges_.begin(), ranges_.end(),
                     [step](const auto& r) { return step >= r.first && step <= r.second; });
}

std::int64_t StepSelection::last() const {
  std::int64_t last = -1;
  for (const auto& r : ranges_) last = std::max(last, r.second);
  return ranges_.empty() ? -1 : last;
}

std::string StepSelection::text() const {
  if (ranges_.empty()) return "all";
  std::string text;
  for (const auto& [first, last] : ranges_) {
    if (!text.empty()) text += ",";
    text += std::to_string(first);
    if (last != first) text += "-" + std::to_string(last);
  }
  return text;
}

}  // namespace parity::trainer
