// The step trace's steps as Parity steps: a step range per step with its
// phases beneath it (iteration_interval as data wait, fp_point..bp_point as
// forward and backward, split at the step's first gradient op where the
// timeline shows one, and the tail as optimizer), and its reduce columns as
// collective rows.
#pragma once

#include <cstdint>
#include <vector>

#include "mindspore/mindspore_step_trace.hpp"
#include "mindspore/mindspore_timeline.hpp"
#include "parity/importers/trace/trace_import.hpp"
#include "trace_assembly.hpp"

namespace parity::importers::trace {

// The track the steps and their phases are on.
TrackId mindspore_steps_track(TraceAssembly& assembly);

// `ops`: the timeline's (empty without one), on the steps' clock.
void add_step_trace(const std::vector<StepTraceStep>& steps, const TimelineOps& ops,
                    std::int64_t rank, TraceAssembly& assembly, ImportSummary& summary);

}  // namespace parity::importers::trace
