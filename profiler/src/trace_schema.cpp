#include "parity/profiler/trace_schema.hpp"

#include <array>
#include <utility>

namespace parity::profiler {

std::string_view track_kind_name(TrackKind kind) {
  switch (kind) {
    case TrackKind::kHostThread: return "host_thread";
    case TrackKind::kGpuDevice: return "gpu_device";
    case TrackKind::kGpuStream: return "gpu_stream";
    case TrackKind::kCollective: return "collective";
    case TrackKind::kCounter: return "counter";
    case TrackKind::kQueue: return "queue";
  }
  return "unknown";
}

namespace {
constexpr std::array<std::pair<Category, std::string_view>, 6> kCategoryNames{{
    {Category::kStep, "step"}, {Category::kPhase, "phase"}, {Category::kLayer, "layer"},
    {Category::kOp, "op"}, {Category::kApi, "api"}, {Category::kUser, "user"},
}};
}  // namespace

std::string_view category_name(Category category) {
  for (const auto& [value, name] : kCategoryNames)
    if (value == category) return name;
  return "unknown";
}

std::optional<Category> parse_category(std::string_view name) {
  for (const auto& [value, text] : kCategoryNames)
    if (text == name) return value;
  return std::nullopt;
}

std::string_view gpu_activity_kind_name(GpuActivityKind kind) {
  switch (kind) {
    case GpuActivityKind::kKernel: return "kernel";
    case GpuActivityKind::kMemcpy: return "memcpy";
    case GpuActivityKind::kMemset: return "memset";
    case GpuActivityKind::kSync: return "sync";
  }
  return "unknown";
}

std::string_view api_kind_name(ApiKind kind) {
  return kind == ApiKind::kRuntime ? "runtime" : kind == ApiKind::kDriver ? "driver" : "unknown";
}

std::string_view queue_role_name(QueueRole role) {
  return role == QueueRole::kProducer ? "producer"
         : role == QueueRole::kConsumer ? "consumer"
                                        : "unknown";
}

std::string_view collective_op_name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kAllReduce: return "allreduce";
    case CollectiveOp::kBroadcast: return "broadcast";
    case CollectiveOp::kAllGather: return "allgather";
    case CollectiveOp::kReduceScatter: return "reduce_scatter";
    case CollectiveOp::kReduce: return "reduce";
    case CollectiveOp::kBarrier: return "barrier";
    case CollectiveOp::kSend: return "send";
    case CollectiveOp::kRecv: return "recv";
    case CollectiveOp::kAllToAll: return "alltoall";
  }
  return "unknown";
}

// The high-volume tables (range, gpu_activity, api_call) are clustered on
// (track_id, start_ns, id) WITHOUT ROWID: the timeline's main query is then the
// table itself, and a row costs no second index entry (docs/trace-schema.md).
// gpu_activity has no correlation index on purpose: its entries would repeat
// the whole clustered key (about 25 bytes a kernel); launch->kernel joins are
// driven from api_call's correlation index instead.
std::string_view schema_sql() {
  return R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE string(id INTEGER PRIMARY KEY, text TEXT NOT NULL);
CREATE TABLE track(
  id INTEGER PRIMARY KEY, kind INTEGER NOT NULL, name_id INTEGER NOT NULL,
  pid INTEGER, tid INTEGER, device INTEGER, stream INTEGER);
CREATE TABLE range(
  track_id INTEGER NOT NULL, start_ns INTEGER NOT NULL, id INTEGER NOT NULL,
  dur_ns INTEGER NOT NULL, name_id INTEGER NOT NULL, category INTEGER NOT NULL,
  depth INTEGER NOT NULL, parent_id INTEGER, arg INTEGER,
  PRIMARY KEY(track_id, start_ns, id)) WITHOUT ROWID;
CREATE TABLE instant(
  id INTEGER PRIMARY KEY, track_id INTEGER NOT NULL, ts_ns INTEGER NOT NULL,
  name_id INTEGER NOT NULL, category INTEGER NOT NULL, arg INTEGER);
CREATE INDEX instant_by_track_time ON instant(track_id, ts_ns);
CREATE TABLE step(
  step INTEGER PRIMARY KEY, track_id INTEGER NOT NULL,
  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL);
CREATE TABLE counter(
  id INTEGER PRIMARY KEY, track_id INTEGER NOT NULL, ts_ns INTEGER NOT NULL, value REAL NOT NULL);
CREATE INDEX counter_by_track_time ON counter(track_id, ts_ns);
CREATE TABLE queue_sample(
  id INTEGER PRIMARY KEY, track_id INTEGER NOT NULL, ts_ns INTEGER NOT NULL,
  depth INTEGER NOT NULL, capacity INTEGER NOT NULL, role INTEGER NOT NULL,
  thread_track_id INTEGER NOT NULL, wait_ns INTEGER NOT NULL);
CREATE INDEX queue_sample_by_track_time ON queue_sample(track_id, ts_ns);
CREATE TABLE parameter(
  idx INTEGER PRIMARY KEY, name TEXT NOT NULL, shape TEXT NOT NULL,
  dtype TEXT NOT NULL, bytes INTEGER NOT NULL);
CREATE TABLE grad_ready(
  id INTEGER PRIMARY KEY, step INTEGER NOT NULL, param_idx INTEGER NOT NULL,
  ts_ns INTEGER NOT NULL, bytes INTEGER NOT NULL, track_id INTEGER NOT NULL);
CREATE INDEX grad_ready_by_step ON grad_ready(step, param_idx);
CREATE TABLE collective(
  id INTEGER PRIMARY KEY, track_id INTEGER NOT NULL, start_ns INTEGER NOT NULL,
  dur_ns INTEGER NOT NULL, op INTEGER NOT NULL, bytes INTEGER NOT NULL, dtype TEXT NOT NULL,
  bucket INTEGER NOT NULL, first_param INTEGER NOT NULL, last_param INTEGER NOT NULL,
  rank INTEGER NOT NULL, step INTEGER NOT NULL);
CREATE INDEX collective_by_track_time ON collective(track_id, start_ns);
CREATE INDEX collective_by_step ON collective(step, bucket);
CREATE TABLE gpu_activity(
  track_id INTEGER NOT NULL, start_ns INTEGER NOT NULL, id INTEGER NOT NULL,
  dur_ns INTEGER NOT NULL, kind INTEGER NOT NULL, name_id INTEGER NOT NULL,
  correlation_id INTEGER, launch_id INTEGER, bytes INTEGER, copy_kind INTEGER,
  PRIMARY KEY(track_id, start_ns, id)) WITHOUT ROWID;
CREATE TABLE launch_config(
  id INTEGER PRIMARY KEY, grid_x INTEGER NOT NULL, grid_y INTEGER NOT NULL,
  grid_z INTEGER NOT NULL, block_x INTEGER NOT NULL, block_y INTEGER NOT NULL,
  block_z INTEGER NOT NULL, shared_bytes INTEGER NOT NULL, registers INTEGER NOT NULL);
CREATE TABLE api_call(
  track_id INTEGER NOT NULL, start_ns INTEGER NOT NULL, id INTEGER NOT NULL,
  dur_ns INTEGER NOT NULL, kind INTEGER NOT NULL, name_id INTEGER NOT NULL,
  correlation_id INTEGER,
  PRIMARY KEY(track_id, start_ns, id)) WITHOUT ROWID;
CREATE INDEX api_call_by_correlation ON api_call(correlation_id);
)sql";
}

}  // namespace parity::profiler
