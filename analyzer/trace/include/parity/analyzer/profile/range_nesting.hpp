// Range nesting: a walk over a trace's host ranges that hands each range the
// ranges open around it, and the time each range leaves to the ranges nested
// in it. The report's self time of ops and layers (op_analysis.hpp) and the
// op-category attribution (category_analysis.hpp) both subtract nested time
// this way, so a parent's time is never counted twice.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "parity/analyzer/profile/trace_data.hpp"

namespace parity::analyzer {

// Calls visit(i, open) for every range in trace order (by track and start,
// parents first); `open` holds the indices of the ranges of the same track
// that enclose range i, outermost first.
template <typename Visit>
void walk_nesting(const TraceData& trace, Visit&& visit) {
  std::vector<std::size_t> open;
  profiler::TrackId track = 0;
  for (std::size_t i = 0; i < trace.ranges.size(); ++i) {
    const TraceRange& range = trace.ranges[i];
    if (i == 0 || range.track != track) {
      open.clear();
      track = range.track;
    }
    if (open.size() > range.depth) open.resize(range.depth);
    visit(i, std::span<const std::size_t>(open));
    open.push_back(i);
  }
}

// For each range, the time of the ranges nested in it that `counts(parent,
// child)` relates to it, each child counted in its nearest such parent only
// (the aten::addmm in aten::linear, not again in the block around both).
template <typename Counts>
std::vector<std::int64_t> nested_ns(const TraceData& trace, Counts&& counts) {
  std::vector<std::int64_t> nested(trace.ranges.size(), 0);
  walk_nesting(trace, [&](std::size_t i, std::span<const std::size_t> open) {
    const TraceRange& child = trace.ranges[i];
    for (auto it = open.rbegin(); it != open.rend(); ++it)
      if (counts(trace.ranges[*it], child)) {
        nested[*it] += child.dur_ns();
        break;
      }
  });
  return nested;
}

}  // namespace parity::analyzer
