#include "pickle/pickle_text.hpp"

#include <charconv>
#include <cstddef>

namespace parity::importers {
namespace {

void append_utf8(std::string& out, char32_t code) {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else if (code < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | (code >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  }
}

std::optional<std::uint32_t> parse_hex(std::string_view digits) {
  std::uint32_t value = 0;
  const auto [end, error] =
      std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

bool is_octal(char c) { return c >= '0' && c <= '7'; }

// One escape of a Python 2 string literal, starting after the backslash at
// text[i]; appends its bytes and returns the index after it.
std::optional<std::size_t> decode_escape(std::string_view text, std::size_t i, std::string& out) {
  // The one-letter escapes and the bytes they stand for, position by position.
  static constexpr std::string_view kLetters = "\\'\"abfnrtv";
  static constexpr std::string_view kBytes = "\\'\"\a\b\f\n\r\t\v";
  static_assert(kLetters.size() == kBytes.size());
  if (i >= text.size()) return std::nullopt;
  if (const std::size_t at = kLetters.find(text[i]); at != std::string_view::npos) {
    out.push_back(kBytes[at]);
    return i + 1;
  }
  switch (const char c = text[i]) {
    case '\n':
      return i + 1;  // a line continuation
    case 'x': {
      if (i + 3 > text.size()) return std::nullopt;
      const auto value = parse_hex(text.substr(i + 1, 2));
      if (!value) return std::nullopt;
      out.push_back(static_cast<char>(*value));
      return i + 3;
    }
    default:
      if (is_octal(c)) {
        unsigned value = 0;
        std::size_t end = i;
        while (end < text.size() && end < i + 3 && is_octal(text[end]))
          value = value * 8 + static_cast<unsigned>(text[end++] - '0');
        out.push_back(static_cast<char>(value & 0xffu));
        return end;
      }
      // Python keeps an unknown escape as written.
      out.push_back('\\');
      out.push_back(c);
      return i + 1;
  }
}

}  // namespace

std::optional<std::int64_t> parse_pickle_decimal(std::string_view text) {
  if (!text.empty() && text.back() == 'L') text.remove_suffix(1);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::string> parse_pickle_decimal_bytes(std::string_view text) {
  if (!text.empty() && text.back() == 'L') text.remove_suffix(1);
  const bool negative = !text.empty() && text.front() == '-';
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) text.remove_prefix(1);
  if (text.empty() || text.size() > kMaxPickleDecimalDigits) return std::nullopt;
  std::string bytes;  // the magnitude, little-endian
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    unsigned carry = static_cast<unsigned>(c - '0');
    for (char& byte : bytes) {
      const unsigned value = static_cast<unsigned char>(byte) * 10u + carry;
      byte = static_cast<char>(value & 0xffu);
      carry = value >> 8;
    }
    if (carry) bytes.push_back(static_cast<char>(carry));
  }
  while (!bytes.empty() && bytes.back() == 0) bytes.pop_back();
  const auto top_bit = [&] { return (static_cast<unsigned char>(bytes.back()) & 0x80u) != 0; };
  if (!negative || bytes.empty()) {
    if (!bytes.empty() && top_bit()) bytes.push_back('\0');
    return bytes;
  }
  // Two's complement: invert and add one, then drop sign bytes the value does not need.
  bytes.push_back('\0');
  unsigned carry = 1;
  for (char& byte : bytes) {
    const unsigned value = (~static_cast<unsigned char>(byte) & 0xffu) + carry;
    byte = static_cast<char>(value & 0xffu);
    carry = value >> 8;
  }
  while (bytes.size() > 1 && static_cast<unsigned char>(bytes.back()) == 0xff &&
         (static_cast<unsigned char>(bytes[bytes.size() - 2]) & 0x80u))
    bytes.pop_back();
  return bytes;
}

std::optional<double> parse_pickle_float(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::string> decode_pickle_string_literal(std::string_view text) {
  if (text.size() < 2 || (text.front() != '\'' && text.front() != '"') ||
      text.back() != text.front())
    return std::nullopt;
  const std::string_view body = text.substr(1, text.size() - 2);
  std::string out;
  for (std::size_t i = 0; i < body.size();) {
    if (body[i] != '\\') {
      out.push_back(body[i++]);
      continue;
    }
    const auto next = decode_escape(body, i + 1, out);
    if (!next) return std::nullopt;
    i = *next;
  }
  return out;
}

std::optional<std::string> decode_raw_unicode_escape(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const bool escape =
        text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == 'u' || text[i + 1] == 'U');
    if (!escape) {
      append_utf8(out, static_cast<unsigned char>(text[i++]));
      continue;
    }
    const std::size_t digits = text[i + 1] == 'u' ? 4 : 8;
    if (i + 2 + digits > text.size()) return std::nullopt;
    const auto code = parse_hex(text.substr(i + 2, digits));
    if (!code || *code > 0x10ffff) return std::nullopt;
    append_utf8(out, static_cast<char32_t>(*code));
    i += 2 + digits;
  }
  return out;
}

bool is_pickle_utf8(std::string_view bytes) {
  for (std::size_t i = 0; i < bytes.size();) {
    const auto lead = static_cast<unsigned char>(bytes[i]);
    std::size_t length = 0;
    char32_t minimum = 0;
    if (lead < 0x80) {
      ++i;
      continue;
    } else if ((lead & 0xe0) == 0xc0) {
      length = 2, minimum = 0x80;
    } else if ((lead & 0xf0) == 0xe0) {
      length = 3, minimum = 0x800;
    } else if ((lead & 0xf8) == 0xf0) {
      length = 4, minimum = 0x10000;
    } else {
      return false;
    }
    if (i + length > bytes.size()) return false;
    char32_t code = lead & (0x7f >> length);
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(bytes[i + k]);
      if ((next & 0xc0) != 0x80) return false;
      code = (code << 6) | (next & 0x3f);
    }
    if (code < minimum || code > 0x10ffff) return false;
    i += length;
  }
  return true;
}

std::string python2_str_to_utf8(std::string_view bytes) {
  if (is_pickle_utf8(bytes)) return std::string(bytes);
  std::string out;
  for (const char c : bytes) append_utf8(out, static_cast<unsigned char>(c));
  return out;
}

std::optional<std::string> utf8_to_latin1(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      out.push_back(static_cast<char>(lead));
    } else if ((lead & 0xfe) == 0xc2 && i + 1 < text.size()) {
      // U+0080..U+00FF are the two-byte sequences led by 0xC2 or 0xC3.
      out.push_back(static_cast<char>(((lead & 0x03) << 6) | (text[++i] & 0x3f)));
    } else {
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace parity::importers
