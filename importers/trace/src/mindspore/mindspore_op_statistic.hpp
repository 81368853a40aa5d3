// op_statistic_<rank>.csv (op_statistic.csv in ASCEND_PROFILER_OUTPUT/), the
// per-type totals (OP Type, Count, Total Time(us); a type may have a row per
// core type): aggregates, not timed events, so never rows (the timeline or
// kernel_details.csv gives the ops). They are kept in meta
// (import.op_statistic) and checked against the counts of those ops.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "mindspore/mindspore_csv.hpp"
#include "parity/importers/trace/trace_import.hpp"
#include "trace_assembly.hpp"

namespace parity::importers::trace {

// `counted_by` names where `counts` come from ("the timeline"); `why_short`
// says why they may differ, for the note that says they do.
void cross_check_op_statistic(const CsvTable& table,
                              const std::map<std::string, std::int64_t>& counts,
                              std::string_view counted_by, std::string_view why_short,
                              TraceAssembly& assembly, ImportSummary& summary);

}  // namespace parity::importers::trace
