// Where CANN's analysed profile lies: the ASCEND_PROFILER_OUTPUT/ folder that
// MindSpore 2.3+ (<name>_ascend_ms/) and torch_npu (<name>_ascend_pt/) write
// per rank, beside the rank's profiler_info_<rank>.json. A user may give the
// output folder itself, the rank's folder, or a parent holding several ranks'
// folders; this finds them all and the framework that wrote them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace parity::importers::trace {

inline constexpr const char* kAscendOutputFolder = "ASCEND_PROFILER_OUTPUT";

struct AscendRankFiles {
  std::int64_t rank = 0;
  bool rank_from_file = false;   // from profiler_info_<rank>.json, not the folders' order
  std::filesystem::path output;  // the ASCEND_PROFILER_OUTPUT folder
  // Empty where the folder has no such file.
  std::filesystem::path trace_view, kernel_details, op_statistic, step_trace_time;
  std::filesystem::path profiler_info, profiler_metadata;  // beside the output folder
  // "MindSpore", "PyTorch (torch_npu)", with what told (a file or the folder's
  // name); empty where nothing tells.
  std::string framework, framework_evidence;
};

// Every rank under `dir`, by rank; empty when `dir` is none of the layouts
// above.
std::vector<AscendRankFiles> find_ascend_ranks(const std::filesystem::path& dir);

// The files Parity reads of a rank, for the cache's stamp.
std::vector<std::filesystem::path> files_of(const AscendRankFiles& rank);

}  // namespace parity::importers::trace
