// CANN's analysed profile, the ASCEND_PROFILER_OUTPUT/ layout of MindSpore
// 2.3+ (<name>_ascend_ms/) and torch_npu (<name>_ascend_pt/), into a
// TraceAssembly: one rank (ImportOptions::rank, or the lowest). trace_view.json
// gives the host ops, steps, device tasks, collectives and CANN calls;
// kernel_details.csv the steps where the trace marks none and a cross-check
// of the kernels; op_statistic.csv a cross-check of the op types;
// step_trace_time.csv each step's time split, kept in meta. docs/import.md
// says what each becomes.
#pragma once

#include <filesystem>
#include <vector>

#include "parity/importers/trace/trace_import.hpp"
#include "trace_assembly.hpp"

namespace parity::importers::trace {

// Throws parity::Error naming the folder or file (and line or byte) for a
// folder without trace_view.json or files that are not CANN's.
void read_ascend_output(const std::filesystem::path& dir, const ImportOptions& options,
                        TraceAssembly& assembly, ImportSummary& summary);

// Whether `dir` is, holds, or holds rank folders holding ASCEND_PROFILER_OUTPUT/.
bool is_ascend_output_dir(const std::filesystem::path& dir);

// Every file Parity reads of every rank in the folder, for the cache's stamp.
std::vector<std::filesystem::path> ascend_output_files(const std::filesystem::path& dir);

}  // namespace parity::importers::trace
