#include "mindspore/mindspore_timeline_steps.hpp"

#include <string>

#include "mindspore/mindspore_step_rows.hpp"

namespace parity::importers::trace {

void add_steps_from_first_op(const TimelineOps& ops, TraceAssembly& assembly,
                             ImportSummary& summary) {
  const std::vector<std::int64_t>& starts = ops.first_op_starts;
  for (std::size_t i = 0; i + 1 < starts.size(); ++i) {
    const auto step = static_cast<std::int64_t>(i + 1);
    assembly.add_range(mindspore_steps_track(assembly), starts[i], starts[i + 1] - starts[i],
                       assembly.name("step " + std::to_string(step)), Category::kStep, step);
    ++summary.imported["steps (from one run of the first op, " + ops.first_op + ", to the next)"];
  }
  if (!starts.empty())
    ++summary.not_imported["steps the timeline holds only the start of (from the last run of " +
                           ops.first_op + " on)"];
  summary.notes.push_back(
      "no Steps lane: steps found as MindSpore's timeline finds them, each from a run of the "
      "first op to its next run; give the profiler/ folder for the step trace's steps");
}

}  // namespace parity::importers::trace
