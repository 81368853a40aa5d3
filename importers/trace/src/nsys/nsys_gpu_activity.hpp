// The GPU side of an Nsight Systems export: CUPTI_ACTIVITY_KIND_KERNEL,
// _MEMCPY, _MEMSET and _SYNCHRONIZATION become gpu_activity rows on a track
// per (process, device, stream), with correlation ids, launch configurations,
// bytes and copy kinds; NCCL's kernels also become collective rows.
#pragma once

#include "nsys/nsys_processes.hpp"
#include "nsys/nsys_source.hpp"

namespace parity::importers::trace {

void read_nsys_gpu_activity(NsysSource& source, NsysProcesses& processes);

}  // namespace parity::importers::trace
