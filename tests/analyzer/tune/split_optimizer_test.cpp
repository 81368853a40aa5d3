// The exact split against brute force over every contiguous split, and
// against MG-WFBP's greedy merge, on random profiles and several costs.
#include "parity/analyzer/tune/split_optimizer.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "parity/analyzer/tune/cost_table.hpp"

using namespace parity::analyzer;
using parity::profiler::GradientBucket;

namespace {

GradientProfile random_profile(std::mt19937_64& random, std::size_t n) {
  GradientProfile profile;
  std::uniform_real_distribution<double> ready(0, 5'000'000);
  std::uniform_int_distribution<std::uint64_t> bytes(1, 8'000'000);
  for (std::size_t i = 0; i < n; ++i) {
    profile.ready_ns.push_back(ready(random));
    profile.bytes.push_back(bytes(random));
  }
  return profile;
}

struct BruteForce {
  double exposed = INFINITY;  // the least over all 2^(n-1) contiguous splits
  std::size_t buckets = 0;    // the fewest buckets of a split that reaches it
};

// Every split of n parameters into contiguous buckets.
std::vector<std::vector<GradientBucket>> every_split(std::size_t n) {
  std::vector<std::vector<GradientBucket>> splits;
  for (std::uint64_t cuts = 0; cuts < (std::uint64_t{1} << (n - 1)); ++cuts) {
    std::vector<GradientBucket>& buckets = splits.emplace_back();
    std::uint32_t first = 0;
    for (std::uint32_t i = 0; i < n; ++i)
      if (i == n - 1 || (cuts >> i & 1)) {
        buckets.push_back({first, i});
        first = i + 1;
      }
  }
  return splits;
}

BruteForce brute_force(const GradientProfile& profile, const CostFunction& cost) {
  const std::size_t n = profile.ready_ns.size();
  std::vector<std::pair<double, std::size_t>> splits;
  for (const std::vector<GradientBucket>& buckets : every_split(n))
    splits.emplace_back(simulate_schedule(profile, buckets, cost).exposed_ns, buckets.size());
  BruteForce best;
  for (const auto& [exposed, count] : splits) best.exposed = std::min(best.exposed, exposed);
  best.buckets = n;
  for (const auto& [exposed, count] : splits)
    if (exposed <= best.exposed + 1e-6) best.buckets = std::min(best.buckets, count);
  return best;
}

void check_covers(const std::vector<GradientBucket>& buckets, std::size_t n) {
  REQUIRE_FALSE(buckets.empty());
  CHECK(buckets.front().first == 0);
  CHECK(buckets.back().last == n - 1);
  for (std::size_t k = 1; k < buckets.size(); ++k)
    CHECK(buckets[k].first == buckets[k - 1].last + 1);
}

struct NamedCost {
  const char* name;
  CostFunction cost;
};

std::vector<NamedCost> costs() {
  const CostTable table(
      {{100'000, 60'000}, {1'000'000, 90'000}, {4'000'000, 500'000}, {16'000'000, 1'400'000}},
      "test");
  return {
      {"alpha-beta", [](double b) { return 40'000 + 0.1 * b; }},
      {"bandwidth only", [](double b) { return 0.3 * b; }},
      // NCCL-like protocol switches: a flat latency, then steps per 2 MB chunk.
      {"step", [](double b) { return 30'000 + 150'000 * std::ceil(b / 2'000'000); }},
      {"concave", [](double b) { return 20'000 + 300 * std::sqrt(b); }},
      {"measured table", [table](double b) { return table.at(b); }},
  };
}

}  // namespace

TEST_CASE("the exact split equals brute force over every contiguous split, in fewest buckets",
          "[unit]") {
  std::mt19937_64 random(7);
  for (const NamedCost& cost : costs())
    for (std::size_t n = 1; n <= 12; ++n)
      for (int instance = 0; instance < 6; ++instance) {
        const GradientProfile profile = random_profile(random, n);
        const std::vector<GradientBucket> optimum = optimal_split(profile, cost.cost);
        INFO(cost.name << ", " << n << " tensors, instance " << instance);
        check_covers(optimum, n);
        const double exposed = simulate_schedule(profile, optimum, cost.cost).exposed_ns;
        const BruteForce best = brute_force(profile, cost.cost);
        CHECK(exposed == Approx(best.exposed).epsilon(1e-12).margin(1e-6));
        CHECK(optimum.size() == best.buckets);
      }
}

TEST_CASE("the exact split is never worse than MG-WFBP's greedy merge", "[unit]") {
  std::mt19937_64 random(11);
  std::uniform_int_distribution<std::size_t> size(1, 160);
  int greedy_worse = 0;
  for (const NamedCost& cost : costs())
    for (int instance = 0; instance < 60; ++instance) {
      const GradientProfile profile = random_profile(random, size(random));
      const std::vector<GradientBucket> greedy = mg_wfbp_split(profile, cost.cost);
      check_covers(greedy, profile.ready_ns.size());
      const double optimum =
          simulate_schedule(profile, optimal_split(profile, cost.cost), cost.cost).exposed_ns;
      const double merged = simulate_schedule(profile, greedy, cost.cost).exposed_ns;
      INFO(cost.name << ", instance " << instance);
      CHECK(optimum <= merged + 1e-6 * std::max(1.0, merged));
      greedy_worse += optimum < merged - 1e-6 * merged;
    }
  CHECK(greedy_worse > 0);  // the instances do tell the two apart
}

TEST_CASE("MG-WFBP merges a gradient whose AllReduce could not start before the next is ready",
          "[unit]") {
  const CostFunction cost = [](double b) { return 100 + b; };
  // Ready in backward order 2, 1, 0. Parameter 2's AllReduce (10..120) ends
  // after parameter 1 is ready (at 50) but starts before it: waiting 40 costs
  // less than the 100 a merge saves, so they merge; their merged AllReduce
  // (50..260) is then still running when parameter 0 is ready (at 60), and
  // has started before it: waiting 10 < 100, so all three merge.
  GradientProfile profile{{60, 50, 10}, {10, 100, 10}, 0, {}};
  CHECK(mg_wfbp_split(profile, cost) == std::vector<GradientBucket>{{0, 2}});
  // Parameter 0 much later: the first group closes when its AllReduce has
  // ended before parameter 0 is ready.
  profile.ready_ns = {1'000, 50, 10};
  CHECK(mg_wfbp_split(profile, cost) == std::vector<GradientBucket>{{0, 0}, {1, 2}});
  // Waiting longer than the startup saved: no merge.
  const CostFunction cheap_start = [](double b) { return 5 + b; };
  profile.ready_ns = {60, 50, 10};
  CHECK(mg_wfbp_split(profile, cheap_start) == std::vector<GradientBucket>{{0, 0}, {1, 1}, {2, 2}});
}

TEST_CASE("the exact split of a hand-worked profile", "[unit]") {
  // Two gradients ready at 0 and 100 (parameter 1 first); cost 50 + bytes.
  const CostFunction cost = [](double b) { return 50 + b; };
  // Separate: 0..60 then 100..160 -> exposed 60; together: 100..170 -> 70.
  GradientProfile profile{{100, 0}, {10, 10}, 0, {}};
  CHECK(optimal_split(profile, cost) == std::vector<GradientBucket>{{0, 0}, {1, 1}});
  // Ready together: one message saves a latency.
  profile.ready_ns = {100, 100};
  CHECK(optimal_split(profile, cost) == std::vector<GradientBucket>{{0, 1}});
  CHECK(optimal_split(GradientProfile{}, cost).empty());
}

TEST_CASE("with backward slowed by AllReduces the split is within resolution of brute force",
          "[unit]") {
  // The least `done` (backward and the lane both finished) over every
  // contiguous split, against the dynamic program that tells states apart by
  // 1e-3 of backward.
  std::mt19937_64 random(13);
  std::uniform_real_distribution<double> loss(0.01, 0.08);
  const CostFunction cost = [](double b) { return 40'000 + 0.1 * b; };
  int slowed_changes_answer = 0;
  for (std::size_t n = 1; n <= 10; ++n)
    for (int instance = 0; instance < 6; ++instance) {
      GradientProfile profile = random_profile(random, n);
      profile.backward_end_ns = profile.last_ready_ns() + 200'000;
      profile.backward_loss = ContentionLoss::uniform(loss(random));
      double best = INFINITY;
      for (const std::vector<GradientBucket>& buckets : every_split(n))
        best = std::min(best, simulate_schedule(profile, buckets, cost).done_ns);
      const std::vector<GradientBucket> optimum = optimal_split(profile, cost);
      INFO(n << " tensors, instance " << instance);
      check_covers(optimum, n);
      const double done = simulate_schedule(profile, optimum, cost).done_ns;
      CHECK(done >= best - 1e-6);
      CHECK(done <= best + 1e-3 * profile.compute_end_ns() * double(n));
      const std::vector<GradientBucket> greedy = mg_wfbp_split(profile, cost);
      check_covers(greedy, n);
      CHECK(done <= simulate_schedule(profile, greedy, cost).done_ns +
                        1e-3 * profile.compute_end_ns() * double(n));
      // Whether the slowdown matters here: the split without it is worse.
      GradientProfile unslowed = profile;
      unslowed.backward_loss = {};
      const double naive = simulate_schedule(profile, optimal_split(unslowed, cost), cost).done_ns;
      slowed_changes_answer += naive > done + 1e-3 * profile.compute_end_ns() * double(n);
    }
  CHECK(slowed_changes_answer > 0);
}
