// step_trace_time.csv of ASCEND_PROFILER_OUTPUT/: per step, CANN's split of
// its time in us (Computing, Communication(Not Overlapped), Overlapped,
// Communication, Free, Stage, Bubble, Preparing...). Durations with no start,
// so not rows: kept in meta (import.step_trace_time) for the reader.
#pragma once

#include "mindspore/mindspore_csv.hpp"
#include "parity/importers/trace/trace_import.hpp"
#include "trace_assembly.hpp"

namespace parity::importers::trace {

// Throws parity::Error naming the file and line for a table without a Step column.
void keep_step_trace_time(const CsvTable& table, TraceAssembly& assembly, ImportSummary& summary);

}  // namespace parity::importers::trace
