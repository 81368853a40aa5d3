// The in-order schedule on hand-computed cases.
#include "parity/analyzer/tune/bucket_schedule.hpp"

#include <catch2/catch.hpp>

using namespace parity::analyzer;
using parity::profiler::GradientBucket;

TEST_CASE("the schedule runs the buckets from the last to the first, in order", "[unit]") {
  // Gradients ready in backward order: parameter 2 at 10, 1 at 20, 0 at 30.
  const GradientProfile profile{{30, 20, 10}, {1, 1, 1}, 0, {}};
  const std::vector<GradientBucket> none{{0, 0}, {1, 1}, {2, 2}};
  const std::vector<GradientBucket> one{{0, 2}};

  // Cost 5: each AllReduce ends before the next gradient is ready.
  const CostFunction five = [](double) { return 5.0; };
  Schedule schedule = simulate_schedule(profile, none, five);
  REQUIRE(schedule.buckets.size() == 3);
  CHECK(schedule.buckets[2].start_ns == 10);
  CHECK(schedule.buckets[2].end_ns == 15);
  CHECK(schedule.buckets[1].start_ns == 20);
  CHECK(schedule.buckets[0].start_ns == 30);
  CHECK(schedule.buckets[0].end_ns == 35);
  CHECK(schedule.exposed_ns == 5);
  CHECK(simulate_schedule(profile, one, five).exposed_ns == 5);

  // Cost 15: the lane is busy; each bucket waits for the one after it.
  const CostFunction fifteen = [](double) { return 15.0; };
  schedule = simulate_schedule(profile, none, fifteen);
  CHECK(schedule.buckets[2].end_ns == 25);
  CHECK(schedule.buckets[1].start_ns == 25);
  CHECK(schedule.buckets[1].end_ns == 40);
  CHECK(schedule.buckets[0].start_ns == 40);
  CHECK(schedule.exposed_ns == 55 - 30);
  CHECK(simulate_schedule(profile, one, fifteen).exposed_ns == 15);
}

TEST_CASE("a bucket is ready when its latest gradient is, and costs its bytes", "[unit]") {
  // Not in backward order: parameter 1 is the last ready, inside bucket 1..2.
  const GradientProfile profile{{10, 50, 20}, {100, 200, 300}, 0, {}};
  const std::vector<GradientBucket> split{{0, 0}, {1, 2}};
  const CostFunction per_byte = [](double bytes) { return bytes / 10; };
  const Schedule schedule = simulate_schedule(profile, split, per_byte);
  CHECK(schedule.buckets[1].bytes == 500);
  CHECK(schedule.buckets[1].ready_ns == 50);
  CHECK(schedule.buckets[1].end_ns == 100);
  CHECK(schedule.buckets[0].bytes == 100);
  CHECK(schedule.buckets[0].start_ns == 100);  // ready at 10, but the lane is busy
  CHECK(schedule.buckets[0].end_ns == 110);
  CHECK(schedule.exposed_ns == 110 - 50);
  CHECK(profile.last_ready_ns() == 50);
  CHECK(profile.total_bytes() == 600);
}
