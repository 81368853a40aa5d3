// The trace database schema: its version, the enumerations stored as integers
// in it, and the SQL that creates it. docs/trace-schema.md documents every
// table; change both together and bump kSchemaVersion on any change.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace parity::profiler {

inline constexpr int kSchemaVersion = 1;

enum class TrackKind : std::uint8_t {
  kHostThread = 1,  // CPU thread: ranges, instants
  kGpuDevice = 2,   // device-wide activity (synchronisation, memory counters)
  kGpuStream = 3,   // kernels, memcpy, memset on one stream
  kCollective = 4,  // a lane of collective operations (one per communicator)
  kCounter = 5,     // one named time series (loss, lr, loss scale, memory)
  kQueue = 6,       // a data queue: depth samples and waits
};

enum class Category : std::uint8_t {
  kStep = 1,   // one training iteration; its arg is the step number
  kPhase = 2,  // data wait, forward, backward, optimizer
  kLayer = 3,  // one module's forward or backward (layer1.0.conv1)
  kOp = 4,     // one operator or kernel call on the host
  kApi = 5,    // a library API call (cuDNN, oneDNN, MPI)
  kUser = 6,   // anything a user marks
};

enum class GpuActivityKind : std::uint8_t { kKernel = 1, kMemcpy = 2, kMemset = 3, kSync = 4 };
enum class ApiKind : std::uint8_t { kRuntime = 1, kDriver = 2 };
enum class QueueRole : std::uint8_t { kProducer = 1, kConsumer = 2 };
enum class CollectiveOp : std::uint8_t {
  kAllReduce = 1,
  kBroadcast = 2,
  kAllGather = 3,
  kReduceScatter = 4,
  kReduce = 5,
  kBarrier = 6,
  kSend = 7,
  kRecv = 8,
  kAllToAll = 9,
};

// Whether a stored integer names an enumerator: readers refuse rows where it does not.
constexpr bool is_known(TrackKind kind) {
  return kind >= TrackKind::kHostThread && kind <= TrackKind::kQueue;
}
constexpr bool is_known(Category category) {
  return category >= Category::kStep && category <= Category::kUser;
}
constexpr bool is_known(GpuActivityKind kind) {
  return kind >= GpuActivityKind::kKernel && kind <= GpuActivityKind::kSync;
}
constexpr bool is_known(ApiKind kind) {
  return kind == ApiKind::kRuntime || kind == ApiKind::kDriver;
}
constexpr bool is_known(QueueRole role) {
  return role == QueueRole::kProducer || role == QueueRole::kConsumer;
}
constexpr bool is_known(CollectiveOp op) {
  return op >= CollectiveOp::kAllReduce && op <= CollectiveOp::kAllToAll;
}

std::string_view track_kind_name(TrackKind kind);
std::string_view category_name(Category category);
std::string_view gpu_activity_kind_name(GpuActivityKind kind);
std::string_view api_kind_name(ApiKind kind);
std::string_view queue_role_name(QueueRole role);
std::string_view collective_op_name(CollectiveOp op);
std::optional<Category> parse_category(std::string_view name);

// Every CREATE TABLE / CREATE INDEX statement of the current schema.
std::string_view schema_sql();

// The tables a trace of this schema version contains, in documentation order.
inline constexpr std::string_view kTraceTables[] = {
    "meta",       "string",       "track",         "range",     "instant",
    "step",       "counter",      "queue_sample",  "parameter", "grad_ready",
    "collective", "gpu_activity", "launch_config", "api_call",
};

}  // namespace parity::profiler
