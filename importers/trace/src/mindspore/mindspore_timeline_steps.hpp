// Steps for a timeline that has no Steps lane (MindSpore 0.5-1.0 wrote
// none), found the way MindSpore's own timeline finds them: a step runs from
// one run of the step's first op to the next run of it. The timeline's first
// device op is taken for that op (the step counter's AssignAdd in the real
// 0.5-1.0 files). The ops after its last run are a step the timeline holds
// only part of, so no step is made of them; the summary counts it.
#pragma once

#include "mindspore/mindspore_timeline.hpp"
#include "parity/importers/trace/trace_import.hpp"
#include "trace_assembly.hpp"

namespace parity::importers::trace {

void add_steps_from_first_op(const TimelineOps& ops, TraceAssembly& assembly,
                             ImportSummary& summary);

}  // namespace parity::importers::trace
