#include "parity/trainer/data/random.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

using namespace parity::trainer;

TEST_CASE("Rng is SplitMix64", "[unit]") {
  // Published SplitMix64 outputs (Vigna's splitmix64.c, also Java's
  // SplittableRandom) for the seeds 1234567 and 0.
  Rng rng(1234567);
  const std::uint64_t expected[] = {6457827717110365317ULL, 3203168211198807973ULL,
                                    9817491932198370423ULL, 4593380528125082431ULL,
                                    16408922859458223821ULL};
  for (const auto value : expected) CHECK(rng.next_u64() == value);
  CHECK(Rng(0).next_u64() == 0xe220a8397b1dcdafULL);
}

TEST_CASE("Rng streams are keyed by purpose and every key word", "[unit]") {
  const auto first = [](Rng rng) { return rng.next_u64(); };
  const auto base = first(Rng::stream(RngPurpose::kAugment, 1, 2, 3));
  CHECK(first(Rng::stream(RngPurpose::kAugment, 1, 2, 3)) == base);
  std::set<std::uint64_t> seen = {base};
  seen.insert(first(Rng::stream(RngPurpose::kPermutation, 1, 2, 3)));
  seen.insert(first(Rng::stream(RngPurpose::kAugment, 2, 2, 3)));
  seen.insert(first(Rng::stream(RngPurpose::kAugment, 1, 3, 3)));
  seen.insert(first(Rng::stream(RngPurpose::kAugment, 1, 2, 4)));
  seen.insert(first(Rng::stream(RngPurpose::kAugment, 2, 1, 3)));  // order matters
  CHECK(seen.size() == 6);
}

TEST_CASE("uniform draws stay in range and are uniform", "[unit]") {
  Rng rng(42);
  std::vector<int> bins(7);
  const int draws = 70000;
  double sum = 0;
  for (int i = 0; i < draws; ++i) {
    const auto k = rng.uniform_int(-3, 3);
    REQUIRE(k >= -3);
    REQUIRE(k <= 3);
    ++bins[static_cast<std::size_t>(k + 3)];
    const double u = rng.uniform();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    sum += u;
  }
  // Chi-square with 6 degrees of freedom: 22.5 is its 0.999 quantile.
  double chi2 = 0;
  for (const int count : bins)
    chi2 += (count - draws / 7.0) * (count - draws / 7.0) / (draws / 7.0);
  CHECK(chi2 < 22.5);
  CHECK(std::abs(sum / draws - 0.5) < 0.01);  // standard error 0.0011
  CHECK(rng.uniform_int(5, 5) == 5);
}

TEST_CASE("random_permutation is a permutation that depends on the stream", "[unit]") {
  Rng a(1), b(1), c(2);
  const auto pa = random_permutation(1000, a);
  CHECK(pa == random_permutation(1000, b));
  const auto pc = random_permutation(1000, c);
  CHECK(pa != pc);
  auto sorted = pa;
  std::sort(sorted.begin(), sorted.end());
  for (std::int64_t i = 0; i < 1000; ++i) REQUIRE(sorted[static_cast<std::size_t>(i)] == i);
  // Each value lands on the first place about equally often.
  std::vector<int> first(5);
  Rng rng(9);
  for (int i = 0; i < 5000; ++i) ++first[static_cast<std::size_t>(random_permutation(5, rng)[0])];
  for (const int count : first) CHECK(std::abs(count - 1000) < 150);  // sd 28
  CHECK(random_permutation(0, rng).empty());
}
