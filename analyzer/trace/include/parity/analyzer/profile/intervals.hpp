// Time intervals and the set operations the analyzer needs to measure how
// much of one activity overlaps another (communication under compute, device
// idle time under a host phase).
#pragma once

#include <cstdint>
#include <vector>

namespace parity::analyzer {

struct Interval {
  std::int64_t start_ns = 0, end_ns = 0;
  std::int64_t length() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
};

// Sorted, disjoint intervals covering the same time as `intervals`.
std::vector<Interval> merge_intervals(std::vector<Interval> intervals);
// Time of `interval` covered by `merged` (sorted and disjoint). O(log n + k).
std::int64_t covered_length(const std::vector<Interval>& merged, Interval interval);
// Whether `t` lies in one of `merged` (sorted and disjoint), ends excluded.
bool contains(const std::vector<Interval>& merged, std::int64_t t);
// The parts of `window` that `merged` (sorted and disjoint) leaves uncovered.
std::vector<Interval> gaps_within(const std::vector<Interval>& merged, Interval window);
// Time of `interval` covered by both `a` and `b` (each sorted and disjoint).
std::int64_t covered_by_both(const std::vector<Interval>& a, const std::vector<Interval>& b,
                             Interval interval);

}  // namespace parity::analyzer
