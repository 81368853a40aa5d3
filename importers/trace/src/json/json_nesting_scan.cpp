#include "json/json_nesting_scan.hpp"

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace parity::importers::trace {
namespace {

// One byte through the state machine; true where it closed the outermost value.
inline bool step(char c, NestingState& state) {
  if (state.in_string) {
    if (state.escaped)
      state.escaped = false;
    else if (c == '\\')
      state.escaped = true;
    else if (c == '"')
      state.in_string = false;
  } else if (c == '"') {
    state.in_string = true;
  } else if (c == '{' || c == '[') {
    ++state.depth;
  } else if (c == '}' || c == ']') {
    return --state.depth == 0;
  }
  return false;
}

#if defined(__SSE2__)
// Bit i set where block[i] is a quote, a backslash or a bracket.
inline std::uint64_t interesting_bytes(const char* block) {
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  // '[' (0x5b) and ']' (0x5d) differ from '{' (0x7b) and '}' (0x7d) in bit 5
  // only, and no other byte ORed with 0x20 gives 0x7b or 0x7d.
  const __m128i bit5 = _mm_set1_epi8(0x20);
  const __m128i open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
  std::uint64_t mask = 0;
  for (int part = 0; part < 4; ++part) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 * part));
    const __m128i folded = _mm_or_si128(bytes, bit5);
    const __m128i hits =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(bytes, quote), _mm_cmpeq_epi8(bytes, backslash)),
                     _mm_or_si128(_mm_cmpeq_epi8(folded, open), _mm_cmpeq_epi8(folded, close)));
    mask |= static_cast<std::uint64_t>(static_cast<std::uint16_t>(_mm_movemask_epi8(hits)))
            << (16 * part);
  }
  return mask;
}
#endif

}  // namespace

std::size_t scan_nesting_scalar(const char* data, std::size_t from, std::size_t end,
                                NestingState& state) {
  for (std::size_t pos = from; pos < end; ++pos)
    if (step(data[pos], state)) return pos + 1;
  return end;
}

std::size_t scan_nesting(const char* data, std::size_t from, std::size_t end,
                         NestingState& state) {
  std::size_t pos = from;
#if defined(__SSE2__)
  constexpr std::size_t kBlock = 64;
  while (end - pos >= kBlock) {
    // The byte after a backslash is consumed whatever it is, so an escape
    // that spans the block's first byte is settled before the mask is read.
    if (state.escaped) {
      state.escaped = false;
      ++pos;
      continue;
    }
    std::uint64_t mask = interesting_bytes(data + pos);
    std::size_t escaped_byte = 0;  // meaningful while state.escaped
    while (mask != 0) {
      const std::size_t at = pos + static_cast<std::size_t>(__builtin_ctzll(mask));
      mask &= mask - 1;
      if (state.escaped) {
        state.escaped = false;
        if (at == escaped_byte) continue;  // an escaped quote or backslash
      }
      if (step(data[at], state)) return at + 1;
      if (state.escaped) escaped_byte = at + 1;
    }
    // An escaped byte that was not interesting lay inside the block.
    if (state.escaped && escaped_byte < pos + kBlock) state.escaped = false;
    pos += kBlock;
  }
#endif
  return scan_nesting_scalar(data, pos, end, state);
}

}  // namespace parity::importers::trace
