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

// The first gradient op's start in [from, to): where backward begins.
std::optional<std::int64_t> backward_start(const std::vector<std::int64_t>& gradient_starts,
                                           std::int64_t from, std::int64_t to) {
  const auto it = std::lower_bound(gradient_starts.begin(), gradient_starts.end(), from);
  if (it == gradient_starts.end() || *it >= to) return std::nullopt;
  return *it;
}

}  // namespace

TrackId mindspore_steps_track(TraceAssembly& assembly) {
  return assembly.track("Steps", profiler::TrackKind::kHostThread);
}

void add_step_trace(const std::vector<StepTraceStep>& steps,
                    const std::vector<std::int64_t>& gradient_starts, std::int64_t rank,
                    TraceAssembly& assembly, ImportSummary& summary) {
  std::uint64_t unsplit = 0;
  for (const StepTraceStep& step : steps) {
    assembly.add_range(mindspore_steps_track(assembly), step.start_ns, step.end_ns - step.start_ns,
                       assembly.name("step " + std::to_string(step.step)), Category::kStep,
                       step.step);
    ++summary.imported["steps (step trace)"];
    add_phase(assembly, "data_wait", step.start_ns, step.fp_ns, summary);
    const std::int64_t compute_end = step.bp_ns.value_or(step.end_ns);
    const auto split =
        step.bp_ns ? backward_start(gradient_starts, step.fp_ns, compute_end) : std::nullopt;
    if (step.bp_ns && !split) ++unsplit;
    add_phase(assembly, "forward", step.fp_ns, split.value_or(compute_end), summary);
    if (split) add_phase(assembly, "backward", *split, compute_end, summary);
    if (step.bp_ns) add_phase(assembly, "optimizer", *step.bp_ns, step.end_ns, summary);
    for (const StepTraceReduce& reduce : step.reduces) {
      const auto op = collective_op_of(op_type(reduce.op));
      add_mindspore_collective(assembly, op.value_or(profiler::CollectiveOp::kAllReduce),
                               reduce.stream, reduce.start_ns, reduce.end_ns - reduce.start_ns,
                               rank);
      ++summary.imported["collectives (step trace reduce columns)"];
    }
  }
  if (unsplit > 0)
    summary.notes.push_back(
        std::to_string(unsplit) +
        " steps without a gradient op (ReluGrad, Conv2DBackpropFilter...) on the timeline "
        "between fp_point and bp_point: their forward phase holds the backward pass too");
  if (!steps.empty() && !steps.front().bp_ns)
    summary.notes.push_back(
        "an inference step trace (no bp_point): no backward or optimizer phases");
}

}  // namespace parity::importers::trace
