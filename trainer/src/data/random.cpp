#include "parity/trainer/data/random.hpp"

#include <limits>
#include <utility>

namespace parity::trainer {
namespace {

std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

}  // namespace

Rng Rng::stream(RngPurpose purpose, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  // Each key word goes through the finalizer before the next joins, so
  // (a, b) and (b, a) give unrelated streams.
  std::uint64_t h = mix(static_cast<std::uint64_t>(purpose) * kGolden);
  h = mix(h ^ (a + kGolden));
  h = mix(h ^ (b + 2 * kGolden));
  h = mix(h ^ (c + 3 * kGolden));
  return Rng(h);
}

std::uint64_t Rng::next_u64() {
  state_ += kGolden;
  return mix(state_);
}

double Rng::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

std::int64_t Rng::uniform_int(std::int64_t low, std::int64_t high) {
  if (high <= low) return low;
  const std::uint64_t range =
      static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low) + 1;
  if (range == 0) return static_cast<std::int64_t>(next_u64());  // the whole 64-bit range
  // Values at or above `limit` would make the low residues more likely.
  const std::uint64_t limit =
      std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % range;
  std::uint64_t value = next_u64();
  while (value >= limit) value = next_u64();
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(low) + value % range);
}

std::vector<std::int64_t> random_permutation(std::int64_t count, Rng& rng) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) order[static_cast<std::size_t>(i)] = i;
  for (std::int64_t i = count - 1; i > 0; --i) {
    const auto j = rng.uniform_int(0, i);
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
  }
  return order;
}

}  // namespace parity::trainer
