// What an Nsight Systems export says about the run rather than its events,
// into the trace's meta: the GPUs (TARGET_INFO_GPU, or TARGET_INFO_CUDA_GPU in
// exports before mid-2021), the host, the export's schema version and capture
// settings (META_DATA_EXPORT, or EXPORT_META_DATA in older releases such as
// 2022.2, and META_DATA_CAPTURE), and the UTC time of the session's start
// (TARGET_INFO_SESSION_START_TIME).
#pragma once

#include <cstdint>
#include <optional>

#include "nsys/nsys_source.hpp"

namespace parity::importers::trace {

// Sets the meta; returns the UTC epoch (ns) of session time 0, where known.
std::optional<std::int64_t> read_nsys_meta(NsysSource& source);

}  // namespace parity::importers::trace
