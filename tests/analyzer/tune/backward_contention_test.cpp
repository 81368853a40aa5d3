// Backward's slowdown under AllReduce: the fit recovers the loss a byte from
// runs that the schedule model itself generated with other splits, and the
// own-progress profile recovers the ready times those runs started from.
#include "parity/analyzer/tune/backward_contention.hpp"

#include <catch2/catch.hpp>

using namespace parity::analyzer;
using parity::profiler::GradientBucket;

namespace {

constexpr double kLoss = 0.05;  // ns of backward a byte reduced beside it

// Six gradients, ready 1..6 ms into backward's own work, which ends at 6.5 ms.
GradientProfile own_profile(const ContentionLoss& loss = ContentionLoss::uniform(kLoss)) {
  GradientProfile profile;
  profile.ready_ns = {6e6, 5e6, 4e6, 3e6, 2e6, 1e6};
  profile.bytes = {4'000'000, 1'000'000, 2'000'000, 500'000, 3'000'000, 800'000};
  profile.backward_end_ns = 6.5e6;
  profile.backward_loss = loss;
  return profile;
}

// The same busy and idle cost, so that an AllReduce's bytes go at one rate.
const CostFunction kCost = [](double bytes) { return 50'000 + bytes / 10; };

std::vector<GradientBucket> unfused() {
  std::vector<GradientBucket> buckets;
  for (std::uint32_t p = 0; p < 6; ++p) buckets.push_back({p, p});
  return buckets;
}

// `steps` identical steps of one rank running `buckets`, as a trace records
// them, backward's end moved by `jitter_ns`. The ready times are the unfused
// run's (the fit reads only backward's end and the AllReduces; the
// own-progress test uses the unfused run).
std::vector<BackwardRecord> records_of(std::int64_t run, const std::vector<GradientBucket>& buckets,
                                       int steps,
                                       const ContentionLoss& loss = ContentionLoss::uniform(kLoss),
                                       double jitter_ns = 0, const CostFunction& cost = kCost) {
  const GradientProfile profile = own_profile(loss);
  const Schedule schedule = simulate_schedule(profile, buckets, cost);
  const Schedule unfused_schedule = simulate_schedule(profile, unfused(), kCost);
  std::vector<BackwardRecord> records;
  for (int step = 0; step < steps; ++step) {
    BackwardRecord& record = records.emplace_back();
    record.run = run;
    record.step = step;
    record.end_ns = schedule.backward_ns + jitter_ns;
    for (const BucketTiming& timing : unfused_schedule.buckets)
      record.ready_ns.push_back(timing.ready_ns);
    for (auto it = schedule.buckets.rbegin(); it != schedule.buckets.rend(); ++it)
      record.allreduces.push_back({it->start_ns, it->end_ns, double(it->bytes)});
  }
  return records;
}

// Runs of the six gradients with splits whose messages fall on both sides of
// 2.5 MB, in every proportion, each with its backward's end moved by +-1 us.
// The AllReduces are slow enough (0.5 ns a byte) that each split reduces another
// share of its bytes during backward.
std::vector<BackwardRecord> runs_across_sizes(const ContentionLoss& loss) {
  const std::vector<std::vector<GradientBucket>> splits = {unfused(),
                                                           {{0, 5}},
                                                           {{0, 2}, {3, 5}},
                                                           {{0, 0}, {1, 1}, {2, 2}, {3, 5}},
                                                           {{0, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}},
                                                           {{0, 0}, {1, 3}, {4, 4}, {5, 5}},
                                                           {{0, 0}, {1, 1}, {2, 3}, {4, 5}}};
  std::vector<BackwardRecord> all;
  for (std::size_t run = 0; run < splits.size(); ++run) {
    const double jitter = run % 2 ? 1000 : -1000;
    const std::vector<BackwardRecord> records =
        records_of(std::int64_t(run), splits[run], 3, loss, jitter,
                   [](double bytes) { return 50'000 + bytes / 2; });
    all.insert(all.end(), records.begin(), records.end());
  }
  return all;
}

std::vector<const BackwardRecord*> pointers_to(const std::vector<BackwardRecord>& records) {
  std::vector<const BackwardRecord*> pointers;
  for (const BackwardRecord& record : records) pointers.push_back(&record);
  return pointers;
}

}  // namespace

TEST_CASE("the schedule slows backward while an AllReduce runs beside it", "[unit]") {
  // Parameter 1 ready at 10 ns of backward's work, parameter 0 at 20, end at
  // 30; 100 bytes cost 20 ns and take 0.1 ns of backward a byte: backward
  // runs at half speed during each.
  GradientProfile profile{{20, 10}, {100, 100}, 30, ContentionLoss::uniform(0.1)};
  const CostFunction cost = [](double bytes) { return bytes / 5; };
  CHECK(profile.backward_rate(100, 20) == Approx(0.5));

  // Unfused: 10..30 (backward gets to 20 by 30), then 30..50 (to 30 by 50).
  Schedule schedule = simulate_schedule(profile, std::vector<GradientBucket>{{0, 0}, {1, 1}}, cost);
  CHECK(schedule.buckets[1].start_ns == Approx(10));
  CHECK(schedule.buckets[1].end_ns == Approx(30));
  CHECK(schedule.buckets[0].ready_ns == Approx(30));
  CHECK(schedule.buckets[0].end_ns == Approx(50));
  CHECK(schedule.backward_ns == Approx(50));
  CHECK(schedule.exposed_ns == Approx(20));
  CHECK(schedule.wait_ns == Approx(0));
  CHECK(schedule.done_ns == Approx(50));

  // One bucket: 200 bytes from 20 (busy 40 ns, half speed): backward's last
  // 10 ns of work end at 40, half the message is left, at the idle cost.
  schedule = simulate_schedule(profile, std::vector<GradientBucket>{{0, 1}}, cost);
  CHECK(schedule.buckets[0].start_ns == Approx(20));
  CHECK(schedule.backward_ns == Approx(40));
  CHECK(schedule.buckets[0].end_ns == Approx(60));
  CHECK(schedule.wait_ns == Approx(20));
  CHECK(schedule.exposed_ns == Approx(40));

  // Without the loss the schedule is the plain one: backward ends at 30.
  profile.backward_loss = {};
  schedule = simulate_schedule(profile, std::vector<GradientBucket>{{0, 0}, {1, 1}}, cost);
  CHECK(schedule.backward_ns == Approx(30));
  CHECK(schedule.buckets[0].start_ns == Approx(30));  // the lane frees at 30
  CHECK(schedule.done_ns == Approx(50));
}

TEST_CASE("the contention fit recovers the loss from runs with other splits", "[unit]") {
  std::vector<BackwardRecord> all;
  for (const auto& [run, buckets] :
       {std::pair{0, unfused()}, std::pair{1, std::vector<GradientBucket>{{0, 5}}},
        std::pair{2, std::vector<GradientBucket>{{0, 2}, {3, 5}}}}) {
    const std::vector<BackwardRecord> records = records_of(run, buckets, 3);
    all.insert(all.end(), records.begin(), records.end());
  }
  std::vector<const BackwardRecord*> pointers;
  for (const BackwardRecord& record : all) pointers.push_back(&record);
  const ContentionFit fit = fit_contention(pointers, 0.001);
  REQUIRE(fit.uniform);
  CHECK(fit.runs == 3);
  CHECK(fit.samples == 3);
  CHECK(fit.uniform->ns_per_byte == Approx(kLoss).epsilon(1e-6));
  CHECK(fit.used());
  CHECK(fit.determined());
  CHECK_FALSE(fit.loss.has_knee());
  CHECK(fit.loss.ns_per_byte == Approx(kLoss).epsilon(1e-6));

  // A loss below what the caller calls negligible is not used.
  CHECK_FALSE(fit_contention(pointers, 1.0).used());
}

TEST_CASE("the contention fit finds a knee where large messages cost more a byte", "[unit]") {
  // Messages above 2.5 MB (the 3 and 4 MB gradients and most buckets) take
  // three times as much of backward a byte as smaller ones.
  const ContentionLoss truth{0.05, 0.15, 2.5e6};
  const std::vector<BackwardRecord> records = runs_across_sizes(truth);
  const ContentionFit fit = fit_contention(pointers_to(records), 0.001);
  REQUIRE(fit.knee);
  // The knee lies between the largest message of up to 2.5 MB and the smallest above.
  CHECK(fit.knee->smaller_size == 2'500'000);
  CHECK(fit.knee->larger_size == 3'000'000);
  CHECK(fit.knee->bytes >= 2.5e6);
  CHECK(fit.knee->bytes < 3e6);
  CHECK(fit.knee->below.ns_per_byte == Approx(0.05).epsilon(0.05));
  CHECK(fit.knee->above.ns_per_byte == Approx(0.15).epsilon(0.05));
  REQUIRE(fit.used());
  CHECK(fit.loss.has_knee());
  CHECK(fit.loss.ns_per_byte_at(1e6) == Approx(0.05).epsilon(0.05));
  CHECK(fit.loss.ns_per_byte_at(4e6) == Approx(0.15).epsilon(0.05));
  // One rate in between fits worse: its loss for a 4 MB message is too small.
  REQUIRE(fit.uniform);
  CHECK(fit.uniform->ns_per_byte < 0.14);
}

TEST_CASE("one loss for every size finds no knee", "[unit]") {
  const std::vector<BackwardRecord> records = runs_across_sizes(ContentionLoss::uniform(kLoss));
  const ContentionFit fit = fit_contention(pointers_to(records), 0.001);
  CHECK_FALSE(fit.knee);
  REQUIRE(fit.used());
  CHECK_FALSE(fit.loss.has_knee());
  CHECK(fit.loss.ns_per_byte == Approx(kLoss).epsilon(0.05));
}

TEST_CASE("one run's identical steps cannot tell the loss", "[unit]") {
  const std::vector<BackwardRecord> records = records_of(0, unfused(), 4);
  std::vector<const BackwardRecord*> pointers;
  for (const BackwardRecord& record : records) pointers.push_back(&record);
  const ContentionFit fit = fit_contention(pointers, 0.001);
  CHECK_FALSE(fit.uniform);
  CHECK_FALSE(fit.determined());
  CHECK_FALSE(fit.used());
}

TEST_CASE("the own-progress profile undoes the slowdown the trace shows", "[unit]") {
  const std::vector<BackwardRecord> records = records_of(0, unfused(), 3);
  const GradientProfile own = own_profile();
  // The wall times are later than backward's own progress...
  CHECK(records.front().ready_ns[0] > own.ready_ns[0] + 1000);
  const GradientProfile profile =
      own_progress_profile(records, own.bytes, ContentionLoss::uniform(kLoss));
  REQUIRE(profile.ready_ns.size() == 6);
  for (std::size_t p = 0; p < 6; ++p) CHECK(profile.ready_ns[p] == Approx(own.ready_ns[p]));
  CHECK(profile.backward_end_ns == Approx(own.backward_end_ns));
  CHECK(profile.backward_loss.ns_per_byte == kLoss);
  // ...and without a loss the profile is the wall times.
  const GradientProfile wall = own_progress_profile(records, own.bytes, {});
  CHECK(wall.ready_ns[0] == Approx(records.front().ready_ns[0]));
}

TEST_CASE("bytes reduced count an AllReduce under way by its elapsed fraction", "[unit]") {
  BackwardRecord record;
  record.allreduces = {{10, 20, 1000}, {30, 40, 500}};
  CHECK(bytes_reduced(record, 5) == 0);
  CHECK(bytes_reduced(record, 15) == Approx(500));
  CHECK(bytes_reduced(record, 25) == Approx(1000));
  CHECK(bytes_reduced(record, 50) == Approx(1500));
  CHECK(own_progress(record, 50, ContentionLoss::uniform(0.01)) == Approx(35));
  // With a knee at 800 bytes the 1000-byte message loses 0.02 ns a byte.
  CHECK(own_progress(record, 50, {0.01, 0.02, 800}) == Approx(50 - 20 - 5));
}
