// Where MindSpore's profiler put its files: the `profiler/` folder that
// Profiler.analyse() writes, each file named with its rank
// (step_trace_raw_<rank>_detail_time.csv, ascend_timeline_display_<rank>.json,
// ...), all ranks in the folder or one subfolder per rank. This finds them
// and groups them by rank.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace parity::importers::trace {

struct MindSporeRankFiles {
  std::int64_t rank = 0;
  // Empty where the folder has no such file.
  std::filesystem::path timeline;       // ascend_ or gpu_timeline_display_<rank>.json (0.5-0.6:
                                        // timeline_display_<rank>.json)
  std::filesystem::path step_trace;     // step_trace_raw_<rank>_detail_time.csv
  std::filesystem::path queue_trace;    // device_queue_ or dataset_iterator_profiling_<rank>.txt
  std::filesystem::path op_statistic;   // op_statistic_<rank>.csv
  std::filesystem::path pipeline;       // minddata_pipeline_raw_<rank>.csv
  std::filesystem::path timeline_data;  // output_timeline_data_<rank>.txt (the JSON's source)
};

// Every rank whose files are in `dir` or its subfolders (one level down), by
// rank; empty when there are none (not a MindSpore profiler folder).
std::vector<MindSporeRankFiles> find_mindspore_ranks(const std::filesystem::path& dir);

// The files a rank has, for the cache's stamp.
std::vector<std::filesystem::path> files_of(const MindSporeRankFiles& rank);

// The files beside the rank's that Parity does not read (framework_raw_*,
// aicore_intermediate_*...), other ranks' files left out, by name.
std::vector<std::string> unread_files(const MindSporeRankFiles& rank);

}  // namespace parity::importers::trace
