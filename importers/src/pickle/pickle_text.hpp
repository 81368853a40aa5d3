// Text in pickles: the decimal, float and quoted-string arguments of protocol
// 0 opcodes, the raw-unicode-escape of UNICODE, and UTF-8 checks for str
// values. Every function returns nullopt for malformed text; the pickle
// reader turns that into an error with the offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace parity::importers {

// A Python int literal: optional sign, decimal digits, and (for LONG) an
// optional trailing 'L'. nullopt beyond int64 as well.
std::optional<std::int64_t> parse_pickle_decimal(std::string_view text);
// The same for an int of any size up to kMaxPickleDecimalDigits digits: its
// little-endian two's complement bytes, as short as LONG1 stores them.
inline constexpr std::size_t kMaxPickleDecimalDigits = 100;
std::optional<std::string> parse_pickle_decimal_bytes(std::string_view text);
// A Python float repr: "1.5", "-2e-05", "inf", "nan".
std::optional<double> parse_pickle_float(std::string_view text);
// The argument of STRING: a quoted Python 2 string literal with backslash
// escapes; returns its bytes.
std::optional<std::string> decode_pickle_string_literal(std::string_view text);
// The argument of UNICODE (raw-unicode-escape): bytes are Latin-1 code
// points, except \uXXXX and \UXXXXXXXX. Returns UTF-8.
std::optional<std::string> decode_raw_unicode_escape(std::string_view text);

// UTF-8 as Python writes it for str: well-formed sequences, surrogate code
// points (which Python's "surrogatepass" keeps) included.
bool is_pickle_utf8(std::string_view bytes);
// Bytes of a Python 2 str: kept when they are UTF-8, read as Latin-1 otherwise.
std::string python2_str_to_utf8(std::string_view bytes);
// The code points of `text` as bytes (Latin-1), or nullopt when one is past
// U+00FF: what _codecs.encode(text, "latin1") makes.
std::optional<std::string> utf8_to_latin1(std::string_view text);

}  // namespace parity::importers
