#include "parity/profiler/record_request.hpp"

#include <cstdlib>
#include <string_view>

#include "parity/core/error.hpp"

namespace parity::profiler {

namespace {

constexpr const char* kOutput = "PARITY_RECORD_OUTPUT";
constexpr const char* kCapture = "PARITY_RECORD_CAPTURE";
constexpr const char* kNvtxRange = "PARITY_RECORD_NVTX_RANGE";
constexpr const char* kStepRange = "PARITY_RECORD_STEP_RANGE";
constexpr const char* kCommand = "PARITY_RECORD_COMMAND";
constexpr const char* kLaunchedPid = "PARITY_RECORD_LAUNCHED_PID";

std::optional<std::string> variable(const char* name) {
  const char* value = std::getenv(name);
  if (!value) return std::nullopt;
  return std::string(value);
}

std::optional<std::int64_t> integer_variable(const char* name) {
  const std::optional<std::string> text = variable(name);
  if (!text || text->empty()) return std::nullopt;
  std::size_t used = 0;
  std::int64_t value = 0;
  try {
    value = std::stoll(*text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text->size())
    throw Error(std::string("environment variable ") + name + "='" + *text +
                "' is not an integer");
  return value;
}

std::filesystem::path with_suffix(const std::filesystem::path& path, const std::string& suffix) {
  std::filesystem::path result = path;
  result.replace_filename(path.stem().string() + "." + suffix + path.extension().string());
  return result;
}

}  // namespace

CaptureRange parse_capture_range(const std::string& text) {
  if (text == "whole") return CaptureRange::kWhole;
  if (text == "nvtx") return CaptureRange::kNvtx;
  if (text == "cudaProfilerApi") return CaptureRange::kCudaProfilerApi;
  throw Error("unknown capture range '" + text + "'", "",
              "one of: whole, nvtx, cudaProfilerApi");
}

const char* capture_range_name(CaptureRange range) {
  switch (range) {
    case CaptureRange::kWhole: return "whole";
    case CaptureRange::kNvtx: return "nvtx";
    case CaptureRange::kCudaProfilerApi: return "cudaProfilerApi";
  }
  return "whole";
}

std::vector<std::pair<std::string, std::string>> record_environment(const RecordRequest& request) {
  return {{kOutput, request.output.string()},
          {kCapture, capture_range_name(request.capture)},
          {kNvtxRange, request.nvtx_range},
          {kStepRange, request.step_range},
          {kCommand, request.command_line},
          {kLaunchedPid, std::to_string(request.launched_pid)}};
}

std::optional<RecordRequest> record_request_from_environment() {
  const std::optional<std::string> output = variable(kOutput);
  if (!output) return std::nullopt;
  if (output->empty()) throw Error(std::string(kOutput) + " is empty");
  RecordRequest request;
  request.output = *output;
  request.capture = parse_capture_range(variable(kCapture).value_or("whole"));
  request.nvtx_range = variable(kNvtxRange).value_or("");
  if (request.capture == CaptureRange::kNvtx && request.nvtx_range.empty())
    throw Error(std::string(kNvtxRange) + " is empty, but the capture range is nvtx");
  request.step_range = variable(kStepRange).value_or("");
  request.command_line = variable(kCommand).value_or("");
  request.launched_pid = static_cast<pid_t>(integer_variable(kLaunchedPid).value_or(0));
  return request;
}

ProcessRank rank_from_environment() {
  // The pairs that torchrun, Open MPI, MPICH/Hydra and Slurm set, in that order.
  constexpr std::pair<const char*, const char*> kLaunchers[] = {
      {"RANK", "WORLD_SIZE"},
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
      {"PMI_RANK", "PMI_SIZE"},
      {"SLURM_PROCID", "SLURM_NTASKS"}};
  for (const auto& [rank_name, size_name] : kLaunchers) {
    const std::optional<std::int64_t> rank = integer_variable(rank_name);
    if (!rank) continue;
    return ProcessRank{*rank, integer_variable(size_name).value_or(1)};
  }
  return ProcessRank{};
}

std::filesystem::path process_trace_path(const RecordRequest& request, const ProcessRank& rank,
                                         pid_t pid) {
  if (rank.world_size > 1) return with_suffix(request.output, "rank" + std::to_string(rank.rank));
  if (pid == request.launched_pid) return request.output;
  return with_suffix(request.output, "pid" + std::to_string(pid));
}

}  // namespace parity::profiler
