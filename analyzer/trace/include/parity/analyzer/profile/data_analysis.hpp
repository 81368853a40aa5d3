// Data-pipeline analysis: how much of the step waits for input, and what the
// data queues show. The input-bound share is the steady-state share of step
// time spent in the data_wait phase (or, for a trace without phases, in
// consumer waits on the queue), classed as TensorFlow's profiler does: under
// 5% not input-bound, 5-20% moderately, over 20% highly. Queue statistics
// count only the samples taken inside the steady-state steps
// (step_analysis.hpp); a queue with none there is left out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "parity/analyzer/profile/step_analysis.hpp"
#include "parity/analyzer/profile/thresholds.hpp"
#include "parity/analyzer/profile/trace_data.hpp"

namespace parity::analyzer {

struct QueueDepthPoint {
  std::int64_t ts_ns = 0;
  std::uint32_t depth = 0;
};

struct QueueStats {
  std::string name;
  std::uint32_t capacity = 0;
  std::int64_t gets = 0, empty_gets = 0, puts = 0;
  double empty_ratio = 0;          // gets that found the queue empty (the consumer waited)
  double consumer_wait_share = 0;  // consumer wait / steady-state step time
  double producer_wait_share = 0;  // producers blocked on a full queue / steady step time
  double producer_rate = 0, consumer_rate = 0;  // batches per second over each side's span
  double mean_depth = 0;                        // seen by the consumer
  std::vector<QueueDepthPoint> depth_series;    // at most kDepthSeriesPoints, for charts
};
inline constexpr std::size_t kDepthSeriesPoints = 400;

enum class InputBound { kNot, kModerately, kHighly };
std::string_view input_bound_name(InputBound bound);  // "not", "moderately", "highly"

struct DataAnalysis {
  std::vector<QueueStats> queues;
  double input_bound_share = 0;
  InputBound input_bound = InputBound::kNot;
  std::string share_source;  // "data_wait phase" or "queue consumer waits"
};

DataAnalysis analyze_data(const TraceData& trace, const StepAnalysis& steps,
                          const Thresholds& thresholds);

}  // namespace parity::analyzer
