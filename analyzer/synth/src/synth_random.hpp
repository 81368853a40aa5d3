// SynthRandom: the random numbers of synthetic traces. Built on
// std::mt19937_64, whose output the standard fixes, and deliberately not on
// std::*_distribution, whose output differs between standard libraries: a
// seed gives the same trace whatever library built Parity.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

namespace parity::analyzer::synth {

// A seed for one purpose (a rank, the shared setup) derived from the user's
// seed: splitmix64, so that neighbouring seeds give unrelated streams.
inline std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The independent random streams of a trace: the setup shared by the ranks,
// the coordination between them, and one per rank.
inline constexpr std::uint64_t kSetupStream = 0, kCoordinatorStream = 1;
inline std::uint64_t rank_stream(int rank) { return 2 + static_cast<std::uint64_t>(rank); }

class SynthRandom {
 public:
  explicit SynthRandom(std::uint64_t seed) : engine_(seed) {}

  // Uniform in [0, 1), from the top 53 bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Uniform integer in [lo, hi]; the modulo bias is far below what a trace shows.
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(engine_() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool chance(double probability) { return uniform() < probability; }
  // Approximately standard normal: the Irwin-Hall sum of 12 uniforms, exact
  // arithmetic only (no libm), bounded to +-6.
  double normal() {
    double sum = 0;
    for (int i = 0; i < 12; ++i) sum += uniform();
    return sum - 6.0;
  }
  // A factor around 1 with relative spread `sigma`, never below 0.5.
  double jitter(double sigma) { return std::fmax(0.5, 1.0 + sigma * normal()); }

 private:
  std::mt19937_64 engine_;
};

}  // namespace parity::analyzer::synth
