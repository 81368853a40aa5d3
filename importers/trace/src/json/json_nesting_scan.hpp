// Finds where a JSON object or array ends, a buffer at a time: the chunked
// reader's inner loop, and about a fifth of an import's CPU time when done a
// byte at a time. The SSE2 path looks at 64 bytes per step and visits only
// the bytes that can change the state (quotes, backslashes, brackets); the
// scalar path is its reference, and the whole path where SSE2 is absent.
#pragma once

#include <cstddef>

namespace parity::importers::trace {

// Where the scan stands inside a value, kept from one buffer to the next.
struct NestingState {
  int depth = 0;          // open '{' and '[' outside strings
  bool in_string = false;
  bool escaped = false;   // the next byte follows a backslash in a string
};

// Scans data[from, end) from `state`. Returns the position just past the
// bracket that closes the outermost value (depth back to 0), or `end` when
// the value goes on past the buffer, with `state` updated for the next one.
// Assumes the scan started at the value's opening bracket.
std::size_t scan_nesting(const char* data, std::size_t from, std::size_t end,
                         NestingState& state);

// The byte-at-a-time reference; same contract.
std::size_t scan_nesting_scalar(const char* data, std::size_t from, std::size_t end,
                                NestingState& state);

}  // namespace parity::importers::trace
