// MindSpore's profiler output into a TraceAssembly: a profiler folder (one
// rank of it: ImportOptions::rank, or the lowest) or a single timeline JSON.
// The folder's step trace gives the steps, their phases and the reduces; its
// timeline the ops; its data-queue trace the queue samples; op_statistic a
// cross-check. docs/import.md says what each becomes.
#pragma once

#include <filesystem>
#include <vector>

#include "parity/importers/trace/trace_import.hpp"
#include "trace_assembly.hpp"

namespace parity::importers::trace {

// Throws parity::Error naming the file and the line or byte offset for input
// that is not MindSpore's profiler output, or a folder without a step trace.
void read_mindspore_profile(const std::filesystem::path& in, const ImportOptions& options,
                            TraceAssembly& assembly, ImportSummary& summary);

// Whether `dir` holds MindSpore profiler files (its own or in rank subfolders).
bool is_mindspore_profile_dir(const std::filesystem::path& dir);

// Every file of every rank in the folder, for the cache's stamp.
std::vector<std::filesystem::path> mindspore_profile_files(const std::filesystem::path& dir);

}  // namespace parity::importers::trace
