#include "parity/analyzer/loss/loss_pattern.hpp"

#include <charconv>

#include "parity/core/error.hpp"

namespace parity::analyzer {
namespace {

constexpr const char* kPatternHint =
    "a pattern is the loss line's text with {loss} where the loss is, and optionally {step}, "
    "{epoch} and {*} (any text); write {{ and }} for literal braces (docs/loss-compare.md)";
constexpr const char* kNumber =
    "([-+]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[-+]?nan|[-+]?inf)";
constexpr const char* kWhole = "([0-9]{1,18})";  // fits an int64

std::string regex_literal(char c) {
  static const std::string kSpecial = "\\^$.|?*+()[]{}";
  return kSpecial.find(c) != std::string::npos ? std::string("\\") + c : std::string(1, c);
}

double parse_number(const std::string& text) {
  double value = 0;
  const char* begin = text.data() + (text[0] == '+' ? 1 : 0);
  std::from_chars(begin, text.data() + text.size(), value);
  return value;
}

}  // namespace

LossPattern::LossPattern(const std::string& pattern, const std::string& option) : text_(pattern) {
  const auto fail = [&](const std::string& what) {
    throw Error(what, option + " '" + pattern + "'", kPatternHint);
  };
  std::string regex;
  int group = 0;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if ((c == '{' || c == '}') && i + 1 < pattern.size() && pattern[i + 1] == c) {
      regex += regex_literal(c);
      ++i;
    } else if (c == '{') {
      const std::size_t close = pattern.find('}', i);
      if (close == std::string::npos) fail("the pattern has a '{' that is not closed");
      const std::string name = pattern.substr(i + 1, close - i - 1);
      int* slot = name == "loss"    ? &loss_group_
                  : name == "step"  ? &step_group_
                  : name == "epoch" ? &epoch_group_
                                    : nullptr;
      if (name == "*") {
        regex += ".*?";
      } else if (!slot) {
        fail("the pattern has an unknown placeholder {" + name + "}");
      } else if (*slot) {
        fail("the pattern has {" + name + "} twice");
      } else {
        *slot = ++group;
        regex += name == "loss" ? kNumber : kWhole;
      }
      i = close;
    } else if (c == '}') {
      fail("the pattern has a '}' that no '{' opens");
    } else if (c == ' ' || c == '\t') {
      while (i + 1 < pattern.size() && (pattern[i + 1] == ' ' || pattern[i + 1] == '\t')) ++i;
      regex += "[ \\t]+";
    } else {
      regex += regex_literal(c);
    }
  }
  if (!loss_group_) fail("the pattern has no {loss}");
  regex_ = std::regex(regex, std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
}

std::optional<LogRecord> LossPattern::match(const std::string& line) const {
  std::smatch match;
  if (!std::regex_search(line, match, regex_)) return std::nullopt;
  LogRecord record;
  record.loss = parse_number(match[loss_group_].str());
  if (step_group_) record.step = std::stoll(match[step_group_].str());
  if (epoch_group_) record.epoch = std::stoll(match[epoch_group_].str());
  return record;
}

}  // namespace parity::analyzer
