#include "parity/analyzer/profile/intervals.hpp"

#include <algorithm>

namespace parity::analyzer {

std::vector<Interval> merge_intervals(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(),
            [](const Interval& a, const Interval& b) { return a.start_ns < b.start_ns; });
  std::vector<Interval> merged;
  for (const Interval& next : intervals) {
    if (next.length() == 0) continue;
    if (!merged.empty() && next.start_ns <= merged.back().end_ns)
      merged.back().end_ns = std::max(merged.back().end_ns, next.end_ns);
    else
      merged.push_back(next);
  }
  return merged;
}

namespace {

// The first of `merged` that ends after `t`.
std::vector<Interval>::const_iterator first_ending_after(const std::vector<Interval>& merged,
                                                         std::int64_t t) {
  return std::upper_bound(merged.begin(), merged.end(), t,
                          [](std::int64_t time, const Interval& m) { return time < m.end_ns; });
}

}  // namespace

std::int64_t covered_length(const std::vector<Interval>& merged, Interval interval) {
  std::int64_t covered = 0;
  for (auto it = first_ending_after(merged, interval.start_ns);
       it != merged.end() && it->start_ns < interval.end_ns; ++it)
    covered += std::min(it->end_ns, interval.end_ns) - std::max(it->start_ns, interval.start_ns);
  return covered;
}

bool contains(const std::vector<Interval>& merged, std::int64_t t) {
  const auto it = first_ending_after(merged, t);
  return it != merged.end() && it->start_ns <= t;
}

std::vector<Interval> gaps_within(const std::vector<Interval>& merged, Interval window) {
  std::vector<Interval> gaps;
  std::int64_t cursor = window.start_ns;  // covered or looked at until here
  for (auto it = first_ending_after(merged, window.start_ns);
       it != merged.end() && it->start_ns < window.end_ns; ++it) {
    if (it->start_ns > cursor) gaps.push_back({cursor, it->start_ns});
    cursor = std::max(cursor, it->end_ns);
  }
  if (cursor < window.end_ns) gaps.push_back({cursor, window.end_ns});
  return gaps;
}

std::int64_t covered_by_both(const std::vector<Interval>& a, const std::vector<Interval>& b,
                             Interval interval) {
  std::int64_t covered = 0;
  for (auto it = first_ending_after(a, interval.start_ns);
       it != a.end() && it->start_ns < interval.end_ns; ++it)
    covered += covered_length(
        b, {std::max(it->start_ns, interval.start_ns), std::min(it->end_ns, interval.end_ns)});
  return covered;
}

}  // namespace parity::analyzer
