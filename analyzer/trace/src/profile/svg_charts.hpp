// The SVG charts of the HTML profile report. Each function returns one
// <svg> element that is also well-formed XML on its own (every number finite,
// every text escaped, tooltips in <title> elements), or an empty string when
// there is nothing to draw.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "parity/analyzer/profile/comm_analysis.hpp"
#include "parity/analyzer/profile/data_analysis.hpp"
#include "parity/analyzer/profile/op_analysis.hpp"
#include "parity/analyzer/profile/rank_profile.hpp"
#include "parity/analyzer/profile/step_analysis.hpp"

namespace parity::analyzer {

// More steps than this are drawn as this many bars, each the mean of
// neighbouring steps, so a long run's chart stays small.
inline constexpr std::size_t kMaxStepBars = 600;
// More collectives or buckets than this: the rest share one last bar.
inline constexpr std::size_t kMaxCommBars = 40;

// Each step's breakdown, stacked by part, over the steps (y in ms).
std::string step_chart(const StepAnalysis& steps);
// The first `max_bars` ops (the heaviest) by total time, as horizontal bars.
std::string op_chart(const std::vector<OpStat>& ops, std::size_t max_bars);
// Every queue's depth over time, with its capacity dashed.
std::string queue_chart(const std::vector<QueueStats>& queues);
// Overlapped and exposed time per allreduce bucket, or per collective when
// the trace names no buckets.
std::string comm_chart(const CommAnalysis& comm);
// Each rank's median step and its work (the step less its exposed
// communication) against the ranks' median work, by which stragglers are
// found and marked.
std::string rank_chart(const RankComparison& comparison);

}  // namespace parity::analyzer
