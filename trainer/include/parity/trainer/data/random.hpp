// Rng: the data pipeline's random numbers. Every random choice of the loader
// (the epoch's permutation, each sample's augmentation, synthetic images) is
// drawn from a stream keyed by what it is for (seed, epoch, sample index), so
// results never depend on thread timing, worker count or the C++ library's
// distributions (std::uniform_*_distribution differ between libraries; these
// are written out here and give the same numbers everywhere).
#pragma once

#include <cstdint>
#include <vector>

namespace parity::trainer {

// What a random stream is for; keeps streams with equal keys apart.
enum class RngPurpose : std::uint64_t {
  kPermutation = 1,  // key: (seed, epoch)
  kAugment = 2,      // key: (seed, epoch, sample index)
  kSynthetic = 3,    // key: (seed, sample index)
};

// SplitMix64 (Steele, Lea, Flood 2014): 64-bit state, passes BigCrush, and any
// key hashes to a well-mixed starting state.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  // The stream for `purpose` under key (a, b, c).
  static Rng stream(RngPurpose purpose, std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0);

  std::uint64_t next_u64();
  // Uniform in [0, 1), 53 random bits.
  double uniform();
  // Uniform in [low, high).
  double uniform(double low, double high) { return low + (high - low) * uniform(); }
  // Uniform integer in [low, high], both included; unbiased (rejection).
  std::int64_t uniform_int(std::int64_t low, std::int64_t high);
  // True with probability p.
  bool bernoulli(double p) { return uniform() < p; }

 private:
  std::uint64_t state_;
};

// A uniformly random permutation of 0..count-1 (Fisher-Yates).
std::vector<std::int64_t> random_permutation(std::int64_t count, Rng& rng);

}  // namespace parity::trainer
