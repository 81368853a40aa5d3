#include "parity/analyzer/profile/counter_analysis.hpp"

#include <algorithm>
#include <cmath>

namespace parity::analyzer {
namespace {

const std::vector<CounterPoint>* series(const TraceData& trace, const char* name) {
  const auto it = trace.counters.find(name);
  return it == trace.counters.end() ? nullptr : &it->second;
}

std::optional<double> peak(const std::vector<CounterPoint>* points) {
  if (!points || points->empty()) return std::nullopt;
  double highest = points->front().value;
  for (const CounterPoint& p : *points) highest = std::max(highest, p.value);
  return highest;
}

}  // namespace

CounterAnalysis analyze_counters(const TraceData& trace) {
  CounterAnalysis analysis;
  if (const auto* loss = series(trace, "loss")) {
    analysis.loss_samples = static_cast<std::int64_t>(loss->size());
    for (const CounterPoint& p : *loss) analysis.nonfinite_losses += !std::isfinite(p.value);
  }
  if (const auto* scale = series(trace, "loss_scale")) {
    analysis.loss_scale_samples = static_cast<std::int64_t>(scale->size());
    for (std::size_t i = 1; i < scale->size(); ++i)
      analysis.loss_scale_drops += (*scale)[i].value < (*scale)[i - 1].value;
  }
  if (const auto skips = peak(series(trace, "skipped_steps")))
    analysis.overflow_skips = static_cast<std::int64_t>(*skips);
  for (const char* name : {"nan_count", "inf_count"})
    if (const auto* counts = series(trace, name))
      for (const CounterPoint& p : *counts) analysis.nonfinite_values += p.value;
  analysis.memory_peak_bytes = peak(series(trace, "memory_used_bytes"));
  analysis.memory_capacity_bytes = peak(series(trace, "memory_capacity_bytes"));
  return analysis;
}

}  // namespace parity::analyzer
