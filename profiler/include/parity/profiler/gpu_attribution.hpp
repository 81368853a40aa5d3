// Attributes each GPU activity in a trace to the host code that caused it:
// the CUDA API call with the same correlation id (for a CUDA Graph launch,
// every kernel of the graph shares the launch's id), and the step, phase and
// layer ranges open on that call's thread when it was made.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "parity/profiler/trace_reader.hpp"

namespace parity::profiler {

struct HostContext {
  std::optional<std::int64_t> layer, phase, step;  // range ids
};

struct GpuWorkAttribution {
  TrackId track = 0;  // the gpu_activity row: (track, start, id)
  std::int64_t start_ns = 0, id = 0;
  GpuActivityKind kind = GpuActivityKind::kKernel;
  NameId name = 0;
  std::optional<std::int64_t> launch_row;  // api_call id of the launching call
  NameId launch_name = 0;
  TrackId launch_track = 0;
  HostContext context;
};

struct GpuAttributionSummary {
  std::uint64_t activities = 0;
  std::uint64_t with_launch = 0;  // a launch call with its correlation id is in the trace
  std::uint64_t with_layer = 0;   // ... made inside a layer range
  std::uint64_t with_phase = 0;
};

struct GpuAttribution {
  std::vector<GpuWorkAttribution> work;  // in (track, start, id) order
  GpuAttributionSummary summary;
};

GpuAttribution attribute_gpu_work(TraceReader& trace);

}  // namespace parity::profiler
