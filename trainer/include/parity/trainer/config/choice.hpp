// A closed set of values for one config key: each value of its enum with the
// name configs spell it by and a short description, in one table. The table
// is what parses a config's text, what a refusal lists, what to_yaml writes
// and what `parity-train keys` describes.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace parity::trainer {

template <class E>
struct ChoiceName {
  E value;
  std::string_view name;     // as configs spell it
  std::string_view meaning;  // for `parity-train keys`; empty when the name says it all
};

enum class LetterCase { kExact, kAny };

template <class E>
struct Choices {
  std::span<const ChoiceName<E>> names;  // in the order lists show them
  LetterCase letter_case = LetterCase::kExact;

  std::optional<E> parse(std::string_view text) const {
    for (const ChoiceName<E>& choice : names)
      if (same_name(choice.name, text)) return choice.value;
    return std::nullopt;
  }

  std::string_view name(E value) const {
    for (const ChoiceName<E>& choice : names)
      if (choice.value == value) return choice.name;
    return "unknown";
  }

  // "a, b, c" (last_separator ", ") or "a, b or c" (" or "); `described`
  // adds each value's meaning in parentheses.
  std::string list(std::string_view last_separator, bool described = false) const {
    std::string text;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (i > 0) text += i + 1 == names.size() ? last_separator : std::string_view(", ");
      text += names[i].name;
      if (described && !names[i].meaning.empty())
        text += " (" + std::string(names[i].meaning) + ")";
    }
    return text;
  }

 private:
  bool same_name(std::string_view ours, std::string_view theirs) const {
    if (letter_case == LetterCase::kExact) return ours == theirs;
    if (ours.size() != theirs.size()) return false;
    for (std::size_t i = 0; i < ours.size(); ++i)
      if (lower(ours[i]) != lower(theirs[i])) return false;
    return true;
  }
  static char lower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }
};

// The table of an enum, specialised by the header that declares it
// (config/config_choices.hpp for TrainConfig's).
template <class E>
const Choices<E>& choices_of();

template <class E>
std::string_view name_of(E value) {
  return choices_of<E>().name(value);
}

}  // namespace parity::trainer
