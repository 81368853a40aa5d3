#include "parity/analyzer/loss/trace_loss.hpp"

#include <algorithm>
#include <map>

#include "parity/analyzer/profile/trace_data.hpp"
#include "parity/core/error.hpp"

namespace parity::analyzer {
namespace {

constexpr const char* kLossCounter = "loss";

std::string counter_names(const TraceData& trace) {
  std::string names;
  for (const auto& [name, points] : trace.counters) names += (names.empty() ? "" : ", ") + name;
  return names.empty() ? "none" : names;
}

// The step a sample at `ts_ns` belongs to: the last step begun by then, or
// nullopt before the first.
std::optional<std::int64_t> step_at(const std::vector<TraceStep>& by_start, std::int64_t ts_ns) {
  const auto after =
      std::upper_bound(by_start.begin(), by_start.end(), ts_ns,
                       [](std::int64_t ts, const TraceStep& step) { return ts < step.start_ns; });
  if (after == by_start.begin()) return std::nullopt;
  return std::prev(after)->step;
}

}  // namespace

LossCurve read_trace_loss(const std::filesystem::path& trace_path) {
  const TraceData trace = load_trace(trace_path);
  const auto series = trace.counters.find(kLossCounter);
  if (series == trace.counters.end() || series->second.empty())
    throw Error("the trace holds no loss counter", trace_path.string(),
                "record the run with parity-train --trace (it records the loss each step), or "
                "give its training log instead; the trace's counters: " +
                    counter_names(trace));
  LossCurve curve{trace_path.string(), "Parity trace", {}, {}};
  std::vector<TraceStep> by_start = trace.steps;
  std::sort(by_start.begin(), by_start.end(),
            [](const TraceStep& a, const TraceStep& b) { return a.start_ns < b.start_ns; });
  std::map<std::int64_t, double> by_step;  // a step's last sample, the loss it ended with
  std::int64_t order = 0;
  for (const CounterPoint& point : series->second) {
    const std::optional<std::int64_t> step =
        by_start.empty() ? std::optional<std::int64_t>(order++) : step_at(by_start, point.ts_ns);
    if (step) by_step[*step + 1] = point.value;
  }
  curve.steps_note = by_start.empty()
                         ? "the trace has no steps: the n-th loss sample is step n"
                         : "each loss sample is the step whose range holds it; the trace's "
                           "step 0 is step 1";
  for (const auto& [step, loss] : by_step) curve.points.push_back({step, loss, 0});
  if (curve.points.empty())
    throw Error("no loss sample falls in a step", trace_path.string(),
                "the trace's loss counter was recorded before its first step");
  return curve;
}

}  // namespace parity::analyzer
