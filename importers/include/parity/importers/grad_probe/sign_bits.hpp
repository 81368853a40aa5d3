// Gradient signs as bits, the payload of a gradient-sign probe
// (docs/formats/grad-probe.md): element i of a tensor is bit i % 64 of 64-bit
// word i / 64 (on a little-endian machine, bit i % 8 of byte i / 8: NumPy's
// packbits with bitorder="little"). The bit is 1 where the element is > 0 and
// 0 where it is <= 0 (-0 included) or NaN; +Inf is 1, -Inf is 0. Bits past the
// last element of the last word are 0.
#pragma once

#include <cstdint>
#include <span>

namespace parity::importers {

// 64-bit words that hold one bit per element of `elements`.
constexpr std::int64_t sign_words(std::int64_t elements) { return (elements + 63) / 64; }

// Packs the signs of `values` into `words`, which must hold
// sign_words(values.size()) words; every word is overwritten. Runs four
// elements per SSE2 comparison where the build has SSE2.
void pack_signs(std::span<const float> values, std::span<std::uint64_t> words);

}  // namespace parity::importers
