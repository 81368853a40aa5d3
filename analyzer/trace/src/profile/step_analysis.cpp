#include "parity/analyzer/profile/step_analysis.hpp"

#include <algorithm>
#include <cmath>

#include "parity/core/error.hpp"

namespace parity::analyzer {
namespace {

std::size_t index(StepPart part) { return static_cast<std::size_t>(part); }

// How to get steps into a trace from its source, and what works without them.
std::string no_steps_hint(const TraceData& trace) {
  const auto format = trace.meta.find("import.source_format");
  std::string how = "record a run with parity-train --trace (at least one step)";
  if (format != trace.meta.end()) {
    const std::string& source = format->second;
    if (source.starts_with("Nsight Systems"))
      how = "Nsight Systems has no steps of its own: wrap each iteration in an NVTX range named "
            "like 'step 3' or 'ProfilerStep#3' (torch.cuda.nvtx.range_push(f\"step {i}\"), "
            "nvtxRangePushA) and capture with -t cuda,nvtx";
    else if (source.starts_with("Chrome"))
      how = "profile with a schedule and call prof.step() once per iteration, so that the trace "
            "holds ProfilerStep#N ranges";
    else
      how = "the importer found no step markers in this " + source;
  }
  return how + "; parity info, export and parity-view read the trace without steps";
}

}  // namespace

std::string_view step_part_name(StepPart part) {
  switch (part) {
    case StepPart::kDataWait:
      return "data_wait";
    case StepPart::kForward:
      return "forward";
    case StepPart::kBackward:
      return "backward";
    case StepPart::kOptimizer:
      return "optimizer";
    case StepPart::kCommunication:
      return "communication";
    case StepPart::kOther:
      return "other";
  }
  return "other";
}

StepPart phase_part(std::string_view name) {
  if (name == "data_wait" || name == "data" || name == "dataloader" || name == "get_next" ||
      name.starts_with("enumerate(DataLoader)#"))  // the PyTorch profiler's
    return StepPart::kDataWait;
  if (name == "forward" || name == "fwd") return StepPart::kForward;
  if (name == "backward" || name == "bwd") return StepPart::kBackward;
  if (name == "optimizer" || name == "optimizer_step" || name == "update" ||
      name.starts_with("Optimizer.step#") || name.starts_with("Optimizer.zero_grad#"))
    return StepPart::kOptimizer;
  return StepPart::kOther;
}

std::vector<Interval> collective_intervals(const TraceData& trace) {
  std::vector<Interval> intervals;
  intervals.reserve(trace.collectives.size());
  for (const TraceCollective& c : trace.collectives) intervals.push_back({c.start_ns, c.end_ns});
  return merge_intervals(std::move(intervals));
}

double StepAnalysis::share(StepPart p) const {
  return step_time.total_ns > 0 ? part(p).total_ns / step_time.total_ns : 0;
}

StepAnalysis analyze_steps(const TraceData& trace, const Thresholds& thresholds) {
  if (trace.steps.empty())
    throw Error("the trace holds no training steps", trace.path, no_steps_hint(trace));
  StepAnalysis analysis;
  analysis.steps.resize(trace.steps.size());
  for (std::size_t i = 0; i < trace.steps.size(); ++i) {
    const TraceStep& step = trace.steps[i];
    StepBreakdown& row = analysis.steps[i];
    row.step = step.step;
    row.start_ns = step.start_ns;
    row.dur_ns = step.dur_ns();
    if (i > 0)
      row.gap_before_ns = std::max<std::int64_t>(0, step.start_ns - trace.steps[i - 1].end_ns);
    analysis.total_step_ns += row.dur_ns;
  }
  const auto row_of = [&](const TraceRange& range) -> StepBreakdown* {
    const auto it = std::lower_bound(trace.steps.begin(), trace.steps.end(), range.step,
                                     [](const TraceStep& s, std::int64_t n) { return s.step < n; });
    if (it == trace.steps.end() || it->step != range.step || it->track != range.track)
      return nullptr;
    return &analysis.steps[static_cast<std::size_t>(it - trace.steps.begin())];
  };

  // Collective time under each phase, to be taken off the optimizer and counted as exposed.
  const std::vector<Interval> comm = collective_intervals(trace);
  std::vector<std::int64_t> comm_hidden(trace.steps.size(), 0);  // under data, forward, backward
  std::vector<std::int64_t> comm_in_optimizer(trace.steps.size(), 0);
  for (const TraceRange& range : trace.ranges) {
    if (range.category != profiler::Category::kPhase) continue;
    StepBreakdown* row = row_of(range);
    if (!row) continue;
    const StepPart part = phase_part(trace.name(range.name));
    if (part == StepPart::kOther) continue;
    row->parts[index(part)] += range.dur_ns();
    const std::size_t i = static_cast<std::size_t>(row - analysis.steps.data());
    const std::int64_t covered =
        comm.empty() ? 0 : covered_length(comm, {range.start_ns, range.end_ns});
    (part == StepPart::kOptimizer ? comm_in_optimizer[i] : comm_hidden[i]) += covered;
  }
  for (std::size_t i = 0; i < analysis.steps.size(); ++i) {
    StepBreakdown& row = analysis.steps[i];
    const std::int64_t in_step =
        comm.empty() ? 0 : covered_length(comm, {row.start_ns, row.start_ns + row.dur_ns});
    row.parts[index(StepPart::kCommunication)] =
        std::max<std::int64_t>(0, in_step - comm_hidden[i]);
    row.parts[index(StepPart::kOptimizer)] -= comm_in_optimizer[i];
    std::int64_t known = 0;
    for (std::size_t p = 0; p < kStepParts - 1; ++p) known += row.parts[p];
    row.parts[index(StepPart::kOther)] = std::max<std::int64_t>(0, row.dur_ns - known);
  }

  const auto warmup = static_cast<std::size_t>(std::max(0.0, std::floor(thresholds.warmup_steps)));
  // With no step past the warm-up, the steady state is every step there is.
  analysis.warmup_steps = analysis.steps.size() > warmup ? warmup : 0;
  std::vector<std::int64_t> times, gaps;
  std::array<std::vector<std::int64_t>, kStepParts> parts;
  for (std::size_t i = analysis.warmup_steps; i < analysis.steps.size(); ++i) {
    const StepBreakdown& row = analysis.steps[i];
    analysis.steady_spans.push_back({row.start_ns, row.start_ns + row.dur_ns});
    times.push_back(row.dur_ns);
    if (i > 0) gaps.push_back(row.gap_before_ns);
    for (std::size_t p = 0; p < kStepParts; ++p) parts[p].push_back(row.parts[p]);
  }
  analysis.steady_spans = merge_intervals(std::move(analysis.steady_spans));
  analysis.step_time = distribution_of(times);
  analysis.gap = distribution_of(gaps);
  for (std::size_t p = 0; p < kStepParts; ++p) analysis.parts[p] = distribution_of(parts[p]);
  return analysis;
}

}  // namespace parity::analyzer
