// The few Python literals a .npy header is written in: a dict of strings,
// booleans, integers, tuples and lists (repr() output, as NumPy writes it).
// No expressions, no names but True, False and None: the header is data,
// never code.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parity::importers {

struct PythonLiteral {
  enum class Kind { kString, kInteger, kBool, kNone, kTuple, kList, kDict };
  Kind kind = Kind::kNone;
  std::string text;                  // kString: the decoded string
  std::int64_t integer = 0;          // kInteger
  bool boolean = false;              // kBool
  std::vector<PythonLiteral> items;  // kTuple, kList; kDict: keys and values alternating
  std::string source;                // the literal as written, for error messages
};

// Parses `text`, which must hold one literal and nothing else but white
// space. Throws parity::Error (at `where`) naming the offset of a syntax
// error, an integer beyond int64, or nesting deeper than 32 levels.
PythonLiteral parse_python_literal(std::string_view text, const std::string& where);

}  // namespace parity::importers
