// NVTX_EVENTS of an Nsight Systems export: push/pop ranges (event types 59,
// and 70 from NVTXT files) become user ranges on their threads, nested by
// time; start/end ranges (60, 71), which may overlap and end on another
// thread, go on a lane of their process; marks (34) become instants. Ranges
// named like steps (nsys_step_name.hpp) are steps.
#pragma once

#include "nsys/nsys_processes.hpp"
#include "nsys/nsys_source.hpp"

namespace parity::importers::trace {

void read_nsys_nvtx(NsysSource& source, NsysProcesses& processes);

}  // namespace parity::importers::trace
