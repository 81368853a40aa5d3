// Step analysis: each training step split into what its time went to, and
// the steady-state statistics of every part. The split is a partition of the
// step's wall time on the thread that ran it:
//   data_wait, forward, backward  the host's phase ranges of those names;
//   communication                 collectives in flight while the host was in
//                                 none of those three phases (the iteration
//                                 tail: exposed communication);
//   optimizer                     the optimizer phase less that communication;
//   other                         the rest (loss, logging, host gaps).
// `gap_before` is the time between the previous step's end and this start.
// The steady state is every step after the first `warmup_steps`; the other
// analyses (ops, kernels, data queues, communication, device idle) count only
// what starts inside a steady-state step's span, on any thread, so that
// start-up, checkpoints, evaluation and warm-up never count as step time.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "parity/analyzer/profile/distribution.hpp"
#include "parity/analyzer/profile/intervals.hpp"
#include "parity/analyzer/profile/thresholds.hpp"
#include "parity/analyzer/profile/trace_data.hpp"

namespace parity::analyzer {

enum class StepPart { kDataWait, kForward, kBackward, kOptimizer, kCommunication, kOther };
inline constexpr std::size_t kStepParts = 6;
std::string_view step_part_name(StepPart part);  // "data_wait", ..., "other"
inline constexpr std::array<StepPart, kStepParts> kAllStepParts = {
    StepPart::kDataWait,  StepPart::kForward,       StepPart::kBackward,
    StepPart::kOptimizer, StepPart::kCommunication, StepPart::kOther};

struct StepBreakdown {
  std::int64_t step = 0;
  std::int64_t start_ns = 0, dur_ns = 0;
  std::int64_t gap_before_ns = 0;  // 0 for the first step
  std::array<std::int64_t, kStepParts> parts{};
  std::int64_t part(StepPart p) const { return parts[static_cast<std::size_t>(p)]; }
};

struct StepAnalysis {
  std::vector<StepBreakdown> steps;            // every step, in order
  std::size_t warmup_steps = 0;                // the first steps, left out of the steady state
  Distribution step_time;                      // steady state
  Distribution gap;                            // steady state
  std::array<Distribution, kStepParts> parts;  // steady state
  std::int64_t total_step_ns = 0;              // every step, warm-up included
  std::vector<Interval> steady_spans;          // the steady steps' [start, end), merged

  const Distribution& part(StepPart p) const { return parts[static_cast<std::size_t>(p)]; }
  // Steady-state share of the step spent in `p` (sum of part / sum of step time).
  double share(StepPart p) const;
  bool has_steady_state() const { return steps.size() > warmup_steps; }
  // Whether `ts` lies inside a steady-state step ([start, end)).
  bool in_steady_state(std::int64_t ts) const { return contains(steady_spans, ts); }
  // Steady-state steps and their total time: what per-step figures divide by.
  std::size_t steady_count() const { return steps.size() - warmup_steps; }
  double steady_ns() const { return step_time.total_ns; }
};

// Which part a phase range's name stands for ("data_wait", "forward",
// "backward", "optimizer" and their synonyms; the PyTorch profiler's
// "enumerate(DataLoader)#..." and "Optimizer.step#..."); kOther for names it
// does not know.
StepPart phase_part(std::string_view phase_name);

// The merged intervals of this rank's collectives.
std::vector<Interval> collective_intervals(const TraceData& trace);

// Throws parity::Error when the trace holds no steps: nothing to analyze.
StepAnalysis analyze_steps(const TraceData& trace, const Thresholds& thresholds);

}  // namespace parity::analyzer
