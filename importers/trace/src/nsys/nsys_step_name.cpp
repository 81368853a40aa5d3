#include "nsys/nsys_step_name.hpp"

#include <cctype>
#include <charconv>
#include <string>

namespace parity::importers::trace {

std::optional<std::int64_t> nvtx_step_number(std::string_view name) {
  std::string folded;
  for (const char c : name)
    folded += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Longest first, so that "iteration" is not read as "iter" then "ation".
  static constexpr std::string_view kWords[] = {"profilerstep", "training_step", "train_step",
                                                "iteration",    "step",          "iter"};
  std::string_view rest = folded;
  bool matched = false;
  for (const std::string_view word : kWords) {
    if (!rest.starts_with(word)) continue;
    rest.remove_prefix(word.size());
    matched = true;
    break;
  }
  if (!matched) return std::nullopt;
  while (!rest.empty() && std::string_view(" #_:=").find(rest.front()) != std::string_view::npos)
    rest.remove_prefix(1);
  std::int64_t number = 0;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), number);
  if (rest.empty() || rest.front() == '-' || error != std::errc() ||
      end != rest.data() + rest.size())
    return std::nullopt;
  return number;
}

}  // namespace parity::importers::trace
