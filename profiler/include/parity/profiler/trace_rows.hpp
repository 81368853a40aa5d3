// One struct per row of the trace schema, as the recorder and the importers
// hand them to TraceWriter. Times are integer nanoseconds on the trace clock.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "parity/profiler/trace_schema.hpp"

namespace parity::profiler {

using NameId = std::uint32_t;   // row of the string table
using TrackId = std::uint32_t;  // row of the track table

struct MetaRow {
  std::string key, value;
};

struct StringRow {
  NameId id = 0;
  std::string text;
};

struct TrackRow {
  TrackId id = 0;
  TrackKind kind = TrackKind::kHostThread;
  NameId name = 0;
  std::optional<std::int64_t> pid, tid, device, stream;
};

struct RangeRow {
  TrackId track = 0;
  std::int64_t start_ns = 0;
  std::int64_t id = 0;  // unique in the trace; ids grow in begin order
  std::int64_t dur_ns = 0;
  NameId name = 0;
  Category category = Category::kUser;
  std::uint32_t depth = 0;                // 0 = outermost on its track
  std::optional<std::int64_t> parent_id;  // enclosing range, none at depth 0
  std::optional<std::int64_t> arg;        // step number for kStep, free otherwise
};

struct InstantRow {
  TrackId track = 0;
  std::int64_t ts_ns = 0;
  NameId name = 0;
  Category category = Category::kUser;
  std::optional<std::int64_t> arg;
};

struct StepRow {
  std::int64_t step = 0;
  TrackId track = 0;
  std::int64_t start_ns = 0, end_ns = 0;
};

struct CounterRow {
  TrackId track = 0;
  std::int64_t ts_ns = 0;
  double value = 0;
};

struct QueueSampleRow {
  TrackId track = 0;  // the queue's track
  std::int64_t ts_ns = 0;
  std::uint32_t depth = 0, capacity = 0;
  QueueRole role = QueueRole::kConsumer;
  TrackId thread_track = 0;  // the producing or consuming thread
  std::int64_t wait_ns = 0;  // time blocked on a full (producer) or empty (consumer) queue
};

struct ParameterRow {
  std::int64_t index = 0;  // forward (registration) order
  std::string name, shape, dtype;
  std::int64_t bytes = 0;
};

struct GradReadyRow {
  std::int64_t step = 0;
  std::int64_t param_index = 0;
  std::int64_t ts_ns = 0;
  std::int64_t bytes = 0;
  TrackId track = 0;  // the thread on which the gradient became ready
};

struct CollectiveRow {
  TrackId track = 0;
  std::int64_t start_ns = 0, dur_ns = 0;
  CollectiveOp op = CollectiveOp::kAllReduce;
  std::int64_t bytes = 0;
  std::string dtype;
  std::int64_t bucket = 0;
  std::int64_t first_param = 0, last_param = 0;  // inclusive, forward order
  std::int64_t rank = 0;
  std::int64_t step = 0;
};

struct LaunchConfig {
  std::array<std::uint32_t, 3> grid{1, 1, 1};
  std::array<std::uint32_t, 3> block{1, 1, 1};
  std::uint32_t shared_bytes = 0;
  std::uint32_t registers = 0;
  bool operator==(const LaunchConfig&) const = default;
};

// A launch_config row: a distinct configuration and its id.
struct LaunchConfigRow : LaunchConfig {
  std::int64_t id = 0;
};

struct GpuActivityRow {
  TrackId track = 0;  // the stream's track
  std::int64_t start_ns = 0;
  std::int64_t id = 0;
  std::int64_t dur_ns = 0;
  GpuActivityKind kind = GpuActivityKind::kKernel;
  NameId name = 0;
  std::optional<std::int64_t> correlation_id;
  std::optional<LaunchConfig> launch;     // kernels only
  std::optional<std::int64_t> bytes;      // memcpy and memset
  std::optional<std::int64_t> copy_kind;  // CUPTI memcpy kind (1 = HtoD, 2 = DtoH, 8 = DtoD...)
};

// A gpu_activity row as stored: the launch configuration interned in launch_config.
struct StoredGpuActivityRow : GpuActivityRow {
  std::optional<std::int64_t> launch_id;  // launch_config.id; kernels only
};

struct ApiCallRow {
  TrackId track = 0;  // the calling thread's track
  std::int64_t start_ns = 0;
  std::int64_t id = 0;
  std::int64_t dur_ns = 0;
  ApiKind kind = ApiKind::kRuntime;
  NameId name = 0;
  std::optional<std::int64_t> correlation_id;
};

}  // namespace parity::profiler
