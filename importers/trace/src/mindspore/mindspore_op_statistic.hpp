// op_statistic_<rank>.csv, the per-type totals (OP Type, Count, Total
// Time(us)): aggregates, not timed events, so never rows (the timeline gives
// the ops). They are kept in meta (import.op_statistic) and checked against
// the timeline's counts, which fall short where MindSpore cut the timeline
// at 20 MB.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "mindspore/mindspore_csv.hpp"
#include "parity/importers/trace/trace_import.hpp"
#include "trace_assembly.hpp"

namespace parity::importers::trace {

void cross_check_op_statistic(const CsvTable& table,
                              const std::map<std::string, std::int64_t>& timeline_counts,
                              TraceAssembly& assembly, ImportSummary& summary);

}  // namespace parity::importers::trace
