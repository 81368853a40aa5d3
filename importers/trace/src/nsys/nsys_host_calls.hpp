// The host side's calls in an Nsight Systems export: CUPTI_ACTIVITY_KIND_RUNTIME
// (CUDA runtime and driver calls, told apart by eventClass) become api_call
// rows with their correlation ids; OSRT_API (pthread, poll, sem_... calls,
// where host threads block) become api ranges on their threads.
#pragma once

#include <string>
#include <string_view>

#include "nsys/nsys_processes.hpp"
#include "nsys/nsys_source.hpp"

namespace parity::importers::trace {

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": nsys's API version suffix.
std::string_view without_api_version(std::string_view name);

void read_nsys_cuda_api(NsysSource& source, NsysProcesses& processes);
void read_nsys_os_runtime(NsysSource& source, NsysProcesses& processes);

}  // namespace parity::importers::trace
