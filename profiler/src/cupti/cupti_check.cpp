#include "cupti_check.hpp"

#include "parity/core/error.hpp"
#include "parity/core/log.hpp"

namespace parity::profiler::cupti {
namespace {

std::string hint_for(CUptiResult result) {
  switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
      return "GPU profiling is restricted to administrators: run as root, or load the driver "
             "with NVreg_RestrictProfilingToAdminUsers=0";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return "another profiler (Nsight Systems, the PyTorch profiler, a second collector) "
             "holds CUPTI in this process; trace with one of them at a time";
    case CUPTI_ERROR_NOT_INITIALIZED:
    case CUPTI_ERROR_INVALID_DEVICE:
    case CUPTI_ERROR_UNKNOWN:  // what CUPTI answers when libcuda.so.1 cannot be loaded
      return "CUPTI found no usable NVIDIA driver or GPU (is libcuda.so.1 installed and a device "
             "visible?); trace this run without GPU collection";
    default:
      return "see CUPTI's documentation for this result";
  }
}

}  // namespace

std::string describe_failure(CUptiResult result, const char* call, const char* file, int line) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || !text) text = "unknown CUPTI error";
  return std::string(call) + " failed: " + text + " (" + std::to_string(static_cast<int>(result)) +
         ") at " + file + ":" + std::to_string(line);
}

void throw_failure(CUptiResult result, const char* call, const char* file, int line) {
  throw Error(describe_failure(result, call, file, line), "CUPTI", hint_for(result));
}

void log_failure(CUptiResult result, const char* call, const char* file, int line) {
  log::warning(describe_failure(result, call, file, line));
}

}  // namespace parity::profiler::cupti
