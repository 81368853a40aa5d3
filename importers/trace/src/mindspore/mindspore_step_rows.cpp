#include "mindspore/mindspore_step_rows.hpp"

#include <algorithm>
#include <optional>

#include "mindspore/mindspore_collective.hpp"
#include "mindspore/mindspore_timeline.hpp"

namespace parity::importers::trace {
namespace {

constexpr const char* kPhases = "phases (data wait, forward, backward, tail as optimizer)";

// Phase names the analyzer files under its step parts (phase_part).
void add_phase(TraceAssembly& assembly, std::string_view name, std::int64_t from, std::int64_t to,
               ImportSummary& summary) {
  if (to <= from) return;
  assembly.add_range(mindspore_steps_track(assembly), from, to - from, assembly.name(name),
                     Category::kPhase);
  ++summary.imported[kPhases];
}

// The first of the sorted `starts` in [from, to): where backward begins, for
// the gradient ops' starts.
std::optional<std::int64_t> first_in(const std::vector<std::int64_t>& starts, std::int64_t from,
                                     std::int64_t to) {
  const auto it = std::lower_bound(starts.begin(), starts.end(), from);
  if (it == starts.end() || *it >= to) return std::nullopt;
  return *it;
}

}  // namespace

TrackId mindspore_steps_track(TraceAssembly& assembly) {
  return assembly.track("Steps", profiler::TrackKind::kHostThread);
}

void add_step_trace(const std::vector<StepTraceStep>& steps, const TimelineOps& ops,
                    std::int64_t rank, TraceAssembly& assembly, ImportSummary& summary) {
  std::uint64_t unsplit = 0, without_ops = 0, unnamed_reduces = 0;
  for (const StepTraceStep& step : steps) {
    assembly.add_range(mindspore_steps_track(assembly), step.start_ns, step.end_ns - step.start_ns,
                       assembly.name("step " + std::to_string(step.step)), Category::kStep,
                       step.step);
    ++summary.imported["steps (step trace)"];
    add_phase(assembly, "data_wait", step.start_ns, step.fp_ns, summary);
    const std::int64_t compute_end = step.bp_ns.value_or(step.end_ns);
    const auto split =
        step.bp_ns ? first_in(ops.gradient_starts, step.fp_ns, compute_end) : std::nullopt;
    if (!first_in(ops.op_starts, step.start_ns, step.end_ns))
      ++without_ops;
    else if (step.bp_ns && !split)
      ++unsplit;
    add_phase(assembly, "forward", step.fp_ns, split.value_or(compute_end), summary);
    if (split) add_phase(assembly, "backward", *split, compute_end, summary);
    if (step.bp_ns) add_phase(assembly, "optimizer", *step.bp_ns, step.end_ns, summary);
    for (const StepTraceReduce& reduce : step.reduces) {
      const auto op = collective_op_of(op_type(reduce.op));
      if (!op) ++unnamed_reduces;
      add_mindspore_collective(assembly, op.value_or(profiler::CollectiveOp::kAllReduce),
                               reduce.stream, reduce.start_ns, reduce.end_ns - reduce.start_ns,
                               rank);
      ++summary.imported["collectives (step trace reduce columns)"];
    }
  }
  if (unsplit > 0)
    summary.notes.push_back(
        std::to_string(unsplit) +
        " steps without a gradient op (Gradients/..., ReluGrad, Conv2DBackpropFilter...) on the "
        "timeline between fp_point and bp_point: their forward phase holds the backward pass "
        "too");
  if (without_ops > 0 && !ops.op_starts.empty())
    summary.notes.push_back(std::to_string(without_ops) + " of " + std::to_string(steps.size()) +
                            " steps have no op on the timeline (it holds fewer steps than the "
                            "step trace): their forward phase holds the backward pass too");
  if (unnamed_reduces > 0)
    summary.notes.push_back(
        std::to_string(unnamed_reduces) +
        " reduces whose column names no collective (stream_<s>_parallel_<i>, "
        "stream_<s>_<i>_parallel): read as AllReduce, which the file does not confirm");
  if (!steps.empty() && !steps.front().bp_ns)
    summary.notes.push_back(
        "an inference step trace (no bp_point): no backward or optimizer phases");
}

}  // namespace parity::importers::trace
