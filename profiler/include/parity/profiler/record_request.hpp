// What `parity record` asks of the processes it launches, passed through
// their environment to the CUDA injection library (CUDA_INJECTION64_PATH),
// which the driver loads into every process that initializes CUDA. Each
// such process writes a database of its own: the launched process the
// output itself, a process with a rank (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK,
// SLURM_PROCID) of a world larger than one `STEM.rankR.db`, any other
// process `STEM.pidP.db`.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace parity::profiler {

enum class CaptureRange {
  kWhole,            // from CUDA's initialization to the process's exit
  kNvtx,             // inside each NVTX range of a given name
  kCudaProfilerApi,  // between cudaProfilerStart and cudaProfilerStop
};

CaptureRange parse_capture_range(const std::string& text);  // throws parity::Error
const char* capture_range_name(CaptureRange range);

struct RecordRequest {
  std::filesystem::path output;  // absolute
  CaptureRange capture = CaptureRange::kWhole;
  std::string nvtx_range;        // the range that opens the window, with kNvtx
  std::string step_range;        // NVTX ranges of this name are the trace's steps ("": none)
  std::string command_line;      // as the user typed it, for the trace's meta
  pid_t launched_pid = 0;        // the process `parity record` started
};

// The variables that carry `request` (launched_pid included).
std::vector<std::pair<std::string, std::string>> record_environment(const RecordRequest& request);
// The request in this process's environment, or nothing when it was not
// launched by `parity record`. Throws parity::Error when the variables are
// malformed.
std::optional<RecordRequest> record_request_from_environment();

struct ProcessRank {
  std::int64_t rank = 0;
  std::int64_t world_size = 1;
};
// The rank and world size that launchers (torchrun, mpirun, srun) put in the
// environment; rank 0 of 1 when none did.
ProcessRank rank_from_environment();

// The database the process `pid` writes for `request`.
std::filesystem::path process_trace_path(const RecordRequest& request, const ProcessRank& rank,
                                         pid_t pid);

}  // namespace parity::profiler
