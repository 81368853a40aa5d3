#include "parity/importers/grad_probe/sign_bits.hpp"

#include <cassert>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace parity::importers {
namespace {

// The bits of up to 64 elements, one at a time (a word's tail, and builds without SSE2).
std::uint64_t pack_word_scalar(const float* values, std::size_t count) {
  std::uint64_t word = 0;
  for (std::size_t i = 0; i < count; ++i)
    word |= static_cast<std::uint64_t>(values[i] > 0.0f) << i;
  return word;
}

#if defined(__SSE2__)
// The bits of 64 elements: an ordered "greater than" is false for NaN, and
// movemask lifts each lane's comparison into one bit, lane 0 lowest.
std::uint64_t pack_word_sse2(const float* values) {
  const __m128 zero = _mm_setzero_ps();
  std::uint64_t word = 0;
  for (int group = 0; group < 16; group += 4) {
    const int a = _mm_movemask_ps(_mm_cmpgt_ps(_mm_loadu_ps(values + 4 * group), zero));
    const int b = _mm_movemask_ps(_mm_cmpgt_ps(_mm_loadu_ps(values + 4 * group + 4), zero));
    const int c = _mm_movemask_ps(_mm_cmpgt_ps(_mm_loadu_ps(values + 4 * group + 8), zero));
    const int d = _mm_movemask_ps(_mm_cmpgt_ps(_mm_loadu_ps(values + 4 * group + 12), zero));
    const auto sixteen = static_cast<std::uint64_t>(a | (b << 4) | (c << 8) | (d << 12));
    word |= sixteen << (4 * group);
  }
  return word;
}
#endif

}  // namespace

void pack_signs(std::span<const float> values, std::span<std::uint64_t> words) {
  assert(static_cast<std::int64_t>(words.size()) ==
         sign_words(static_cast<std::int64_t>(values.size())));
  const std::size_t full = values.size() / 64;
  for (std::size_t w = 0; w < full; ++w)
#if defined(__SSE2__)
    words[w] = pack_word_sse2(values.data() + 64 * w);
#else
    words[w] = pack_word_scalar(values.data() + 64 * w, 64);
#endif
  if (full < words.size())
    words[full] = pack_word_scalar(values.data() + 64 * full, values.size() - 64 * full);
}

}  // namespace parity::importers
