#include "parity/analyzer/profile/data_analysis.hpp"

#include <algorithm>

namespace parity::analyzer {
namespace {

double per_second(std::int64_t count, std::int64_t first_ns, std::int64_t last_ns) {
  return count > 1 && last_ns > first_ns
             ? static_cast<double>(count - 1) * 1e9 / static_cast<double>(last_ns - first_ns)
             : 0;
}

// One queue's samples (a contiguous run of trace.queue_samples), those inside
// the steady-state steps.
QueueStats queue_stats(const TraceData& trace, const TraceQueueSample* begin,
                       const TraceQueueSample* end, const StepAnalysis& steps,
                       const Thresholds& thresholds) {
  QueueStats stats;
  stats.name = trace.track_label(begin->track);
  const auto empty_wait = static_cast<std::int64_t>(thresholds.queue_empty_wait_us * 1000);
  std::int64_t consumer_wait = 0, producer_wait = 0, depth_sum = 0;
  std::int64_t first_get = 0, last_get = 0, first_put = 0, last_put = 0;
  std::vector<QueueDepthPoint> series;
  for (const TraceQueueSample* s = begin; s != end; ++s) {
    if (!steps.in_steady_state(s->ts_ns)) continue;
    stats.capacity = std::max(stats.capacity, s->capacity);
    if (s->role == profiler::QueueRole::kConsumer) {
      if (stats.gets++ == 0) first_get = s->ts_ns;
      last_get = s->ts_ns;
      consumer_wait += s->wait_ns;
      depth_sum += s->depth;
      if (s->wait_ns > empty_wait) ++stats.empty_gets;
      series.push_back({s->ts_ns, s->depth});
    } else {
      if (stats.puts++ == 0) first_put = s->ts_ns;
      last_put = s->ts_ns;
      producer_wait += s->wait_ns;
    }
  }
  if (stats.gets > 0) {
    stats.empty_ratio = static_cast<double>(stats.empty_gets) / static_cast<double>(stats.gets);
    stats.mean_depth = static_cast<double>(depth_sum) / static_cast<double>(stats.gets);
  }
  if (const double step_total = steps.steady_ns(); step_total > 0) {
    stats.consumer_wait_share = static_cast<double>(consumer_wait) / step_total;
    stats.producer_wait_share = static_cast<double>(producer_wait) / step_total;
  }
  stats.consumer_rate = per_second(stats.gets, first_get, last_get);
  stats.producer_rate = per_second(stats.puts, first_put, last_put);
  // Evenly spaced picks keep the chart's shape without every sample.
  const std::size_t stride = series.size() / kDepthSeriesPoints + 1;
  for (std::size_t i = 0; i < series.size(); i += stride) stats.depth_series.push_back(series[i]);
  return stats;
}

}  // namespace

std::string_view input_bound_name(InputBound bound) {
  switch (bound) {
    case InputBound::kNot:
      return "not";
    case InputBound::kModerately:
      return "moderately";
    case InputBound::kHighly:
      return "highly";
  }
  return "not";
}

DataAnalysis analyze_data(const TraceData& trace, const StepAnalysis& steps,
                          const Thresholds& thresholds) {
  DataAnalysis analysis;
  const auto& samples = trace.queue_samples;
  for (std::size_t begin = 0; begin < samples.size();) {
    std::size_t end = begin;
    while (end < samples.size() && samples[end].track == samples[begin].track) ++end;
    QueueStats stats =
        queue_stats(trace, samples.data() + begin, samples.data() + end, steps, thresholds);
    // A queue the steady steps never used (an evaluation loader's) has nothing to say.
    if (stats.gets + stats.puts > 0) analysis.queues.push_back(std::move(stats));
    begin = end;
  }

  const bool has_data_phase =
      std::any_of(steps.steps.begin(), steps.steps.end(),
                  [](const StepBreakdown& s) { return s.part(StepPart::kDataWait) > 0; });
  if (has_data_phase || analysis.queues.empty()) {
    analysis.input_bound_share = steps.share(StepPart::kDataWait);
    analysis.share_source = "data_wait phase";
  } else {
    double waits = 0;
    for (const QueueStats& queue : analysis.queues)
      waits = std::max(waits, queue.consumer_wait_share);
    analysis.input_bound_share = waits;
    analysis.share_source = "queue consumer waits";
  }
  if (analysis.input_bound_share > thresholds.data_bound_error_share)
    analysis.input_bound = InputBound::kHighly;
  else if (analysis.input_bound_share >= thresholds.data_bound_warning_share)
    analysis.input_bound = InputBound::kModerately;
  return analysis;
}

}  // namespace parity::analyzer
