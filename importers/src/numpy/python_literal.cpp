#include "numpy/python_literal.hpp"

#include <cctype>

#include "parity/core/error.hpp"

namespace parity::importers {
namespace {

constexpr int kMaxDepth = 32;

class LiteralParser {
 public:
  LiteralParser(std::string_view text, const std::string& where) : text_(text), where_(where) {}

  PythonLiteral parse_all() {
    PythonLiteral value = parse_value(0);
    skip_space();
    if (at_ < text_.size()) fail("unexpected text after the literal");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error("the header is not a valid Python literal: " + what + " at header byte " +
                    std::to_string(at_),
                where_, "the file was not written by NumPy, or it is damaged");
  }

  void skip_space() {
    while (at_ < text_.size() &&
           (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r'))
      ++at_;
  }

  char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }

  bool consume(char expected) {
    skip_space();
    if (peek() != expected) return false;
    ++at_;
    return true;
  }

  PythonLiteral parse_value(int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    skip_space();
    const std::size_t begin = at_;
    PythonLiteral value;
    const char c = peek();
    if (c == '\'' || c == '"') {
      value.kind = PythonLiteral::Kind::kString;
      value.text = parse_string();
    } else if (c == '-' || c == '+' || (c >= '0' && c <= '9')) {
      value.kind = PythonLiteral::Kind::kInteger;
      value.integer = parse_integer();
    } else if (c == '(') {
      parse_sequence(value, ')', depth);
    } else if (c == '[') {
      value.kind = PythonLiteral::Kind::kList;
      parse_sequence(value, ']', depth);
    } else if (c == '{') {
      value.kind = PythonLiteral::Kind::kDict;
      parse_dict(value, depth);
    } else {
      parse_name(value);
    }
    if (value.source.empty()) value.source = std::string(text_.substr(begin, at_ - begin));
    return value;
  }

  std::string parse_string() {
    const char quote = text_[at_++];
    std::string out;
    while (true) {
      if (at_ >= text_.size() || text_[at_] == '\n') fail("unterminated string");
      const char c = text_[at_++];
      if (c == quote) return out;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (at_ >= text_.size()) fail("unterminated string");
      const char escaped = text_[at_++];
      switch (escaped) {
        case '\\':
        case '\'':
        case '"':
          out.push_back(escaped);
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'r':
          out.push_back('\r');
          break;
        default:
          --at_;
          fail(std::string("unsupported escape \\") + escaped);
      }
    }
  }

  std::int64_t parse_integer() {
    bool negative = false;
    if (peek() == '-' || peek() == '+') negative = text_[at_++] == '-';
    const std::size_t digits_begin = at_;
    constexpr std::uint64_t kMagnitudeLimit = std::uint64_t{1} << 63;  // of INT64_MIN
    std::uint64_t magnitude = 0;
    while (peek() >= '0' && peek() <= '9') {
      const auto digit = static_cast<std::uint64_t>(text_[at_++] - '0');
      if (magnitude > (kMagnitudeLimit - digit) / 10) fail("integer beyond int64");
      magnitude = magnitude * 10 + digit;
    }
    const std::size_t digit_count = at_ - digits_begin;
    if (digit_count == 0) fail("a sign without digits");
    if (digit_count > 1 && text_[digits_begin] == '0') fail("an integer with a leading zero");
    if (!negative && magnitude == kMagnitudeLimit) fail("integer beyond int64");
    // Python 2's NumPy wrote long integers as 3L in version 1.0 and 2.0 headers.
    if (peek() == 'L') ++at_;
    if (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '.' || peek() == '_')
      fail("a number that is not a plain integer");
    return negative ? static_cast<std::int64_t>(0 - magnitude)
                    : static_cast<std::int64_t>(magnitude);
  }

  // Tuples and lists: a parenthesised value without a comma is no tuple.
  void parse_sequence(PythonLiteral& value, char close, int depth) {
    const bool parenthesis = close == ')';
    ++at_;
    bool saw_comma = false;
    while (!consume(close)) {
      if (!value.items.empty() && !saw_comma) fail(std::string("expected ',' or '") + close + "'");
      value.items.push_back(parse_value(depth + 1));
      saw_comma = consume(',');
    }
    if (parenthesis && value.items.size() == 1 && !saw_comma) {
      PythonLiteral inner = std::move(value.items.front());
      value = std::move(inner);
      return;
    }
    if (parenthesis) value.kind = PythonLiteral::Kind::kTuple;
  }

  void parse_dict(PythonLiteral& value, int depth) {
    ++at_;
    bool saw_comma = false;
    while (!consume('}')) {
      if (!value.items.empty() && !saw_comma) fail("expected ',' or '}'");
      value.items.push_back(parse_value(depth + 1));
      if (!consume(':')) fail("expected ':'");
      value.items.push_back(parse_value(depth + 1));
      saw_comma = consume(',');
    }
  }

  void parse_name(PythonLiteral& value) {
    const std::size_t begin = at_;
    while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_') ++at_;
    const std::string_view name = text_.substr(begin, at_ - begin);
    if (name == "True" || name == "False") {
      value.kind = PythonLiteral::Kind::kBool;
      value.boolean = name == "True";
    } else if (name == "None") {
      value.kind = PythonLiteral::Kind::kNone;
    } else {
      at_ = begin;
      fail(name.empty() ? "unexpected character" : "unexpected name '" + std::string(name) + "'");
    }
  }

  std::string_view text_;
  const std::string& where_;
  std::size_t at_ = 0;
};

}  // namespace

PythonLiteral parse_python_literal(std::string_view text, const std::string& where) {
  return LiteralParser(text, where).parse_all();
}

}  // namespace parity::importers
