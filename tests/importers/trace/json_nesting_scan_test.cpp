// The vectorised scan for the end of a JSON value against its byte-at-a-time
// reference: the same end and the same state left over, for every way a
// value is cut into buffers, escapes and brackets inside strings included.
#include "json/json_nesting_scan.hpp"

#include <catch2/catch.hpp>
#include <algorithm>
#include <random>
#include <string>

using parity::importers::trace::NestingState;
using parity::importers::trace::scan_nesting;
using parity::importers::trace::scan_nesting_scalar;

namespace {

struct Outcome {
  std::size_t end;  // where the value ended, or the text's size
  NestingState state;
  bool operator==(const Outcome& other) const {
    return end == other.end && state.depth == other.state.depth &&
           state.in_string == other.state.in_string && state.escaped == other.state.escaped;
  }
};

// Scans `text` cut at `cuts` (ascending), carrying the state across the cuts
// as the chunked reader does.
template <class Scan>
Outcome scan_in_pieces(const std::string& text, const std::vector<std::size_t>& cuts, Scan scan) {
  NestingState state;
  std::size_t from = 0;
  for (std::size_t piece = 0; piece <= cuts.size(); ++piece) {
    const std::size_t end = piece < cuts.size() ? cuts[piece] : text.size();
    // A buffer of its own for each piece, as after a refill.
    const std::string buffer = text.substr(from, end - from) + std::string(64, '\0');
    const std::size_t stop = scan(buffer.data(), 0, end - from, state);
    if (state.depth == 0) return {from + stop, state};
    from = end;
  }
  return {text.size(), state};
}

// A JSON-like object: members with strings full of escapes and brackets,
// nested objects and arrays, from an alphabet that makes every state likely.
std::string random_value(std::mt19937& random, int depth = 0) {
  std::string text = "{";
  const int members = std::uniform_int_distribution<int>(0, 6)(random);
  for (int m = 0; m < members; ++m) {
    if (m > 0) text += ", ";
    text += "\"k\\\"" + std::to_string(m) + "\": ";
    const int kind = std::uniform_int_distribution<int>(0, 3)(random);
    if (kind == 0 && depth < 4) {
      text += random_value(random, depth + 1);
    } else if (kind == 1 && depth < 4) {
      text += "[" + random_value(random, depth + 1) + ", 12.5, \"]\"]";
    } else {
      text += '"';
      const int length = std::uniform_int_distribution<int>(0, 90)(random);
      static constexpr char kAlphabet[] = "ab {}[]\\\"\\\\\\y_";
      for (int i = 0; i < length; ++i) {
        char c = kAlphabet[std::uniform_int_distribution<int>(0, sizeof kAlphabet - 2)(random)];
        if (c == '"') text += '\\';  // a quote in a string is always escaped
        if (c == '\\') {  // an escape: of a backslash, or of a byte that needs no attention
          static constexpr const char* kEscapes[] = {"\\\\", "\\n", "\\u00e9", "\\/"};
          text += kEscapes[std::uniform_int_distribution<int>(0, 3)(random)];
          continue;
        }
        text += c;
      }
      text += '"';
    }
  }
  return text + "}";
}

}  // namespace

TEST_CASE("the vectorised nesting scan ends each value where the byte-wise one does", "[unit]") {
  std::mt19937 random(20261128);
  for (int trial = 0; trial < 3000; ++trial) {
    const std::string value = random_value(random);
    const std::string text = value + ", {\"after\": 1}";
    std::vector<std::size_t> cuts;
    const int pieces = std::uniform_int_distribution<int>(0, 3)(random);
    for (int p = 0; p < pieces; ++p)
      cuts.push_back(std::uniform_int_distribution<std::size_t>(1, text.size() - 1)(random));
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    const Outcome fast = scan_in_pieces(text, cuts, scan_nesting);
    const Outcome reference = scan_in_pieces(text, cuts, scan_nesting_scalar);
    INFO(text);
    REQUIRE(reference.end == value.size());
    REQUIRE(fast == reference);
  }
}

TEST_CASE("an escape across the 64-byte step or the buffer's end is kept", "[unit]") {
  // The backslash as the last byte of a 64-byte step, then of the buffer.
  for (const std::size_t backslash_at : {std::size_t(63), std::size_t(127), std::size_t(70)}) {
    std::string text = "{\"s\": \"";
    text += std::string(backslash_at - text.size(), 'x');
    text += "\\\"}]\"}";  // an escaped quote: the string goes on to the last quote
    REQUIRE(text[backslash_at] == '\\');
    NestingState whole;
    CHECK(scan_nesting(text.data(), 0, text.size(), whole) == text.size());
    CHECK(whole.depth == 0);
    // Cut right after the backslash: the next buffer starts with the escaped quote.
    NestingState state;
    const std::string first = text.substr(0, backslash_at + 1) + std::string(64, '\0');
    CHECK(scan_nesting(first.data(), 0, backslash_at + 1, state) == backslash_at + 1);
    CHECK(state.escaped);
    const std::string rest = text.substr(backslash_at + 1) + std::string(64, '\0');
    CHECK(scan_nesting(rest.data(), 0, text.size() - backslash_at - 1, state) ==
          text.size() - backslash_at - 1);
    CHECK(state.depth == 0);
  }
}
