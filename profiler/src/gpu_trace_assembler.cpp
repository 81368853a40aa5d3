#include "parity/profiler/gpu_trace_assembler.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace parity::profiler {
namespace {

// CUpti_ActivityMemcpyKind, in its numbering.
std::string memcpy_name(std::optional<std::int64_t> copy_kind) {
  static constexpr std::array<std::string_view, 11> kNames{
      "", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
  if (copy_kind && *copy_kind > 0 && *copy_kind < static_cast<std::int64_t>(kNames.size()))
    return "memcpy " + std::string(kNames[static_cast<std::size_t>(*copy_kind)]);
  return "memcpy";
}

std::string_view sync_name(SyncKind kind) {
  switch (kind) {
    case SyncKind::kEvent:
      return "sync event";
    case SyncKind::kStreamWaitEvent:
      return "sync stream wait event";
    case SyncKind::kStream:
      return "sync stream";
    case SyncKind::kContext:
      return "sync context";
    case SyncKind::kUnknown:
      break;
  }
  return "sync";
}

bool is_complete(std::uint64_t start, std::uint64_t end) { return start != 0 && end >= start; }

}  // namespace

GpuTraceAssembler::GpuTraceAssembler(Recorder& recorder, ApiNamer namer,
                                     std::int64_t clock_offset_ns)
    : recorder_(recorder), namer_(std::move(namer)), clock_offset_ns_(clock_offset_ns) {}

std::int64_t GpuTraceAssembler::trace_ns(std::uint64_t collector_ns) const {
  return recorder_.trace_ns_from_monotonic(static_cast<std::int64_t>(collector_ns) +
                                           clock_offset_ns_);
}

NameId GpuTraceAssembler::kernel_name(std::string_view name) {
  if (const auto it = kernel_names_.find(name); it != kernel_names_.end()) return it->second;
  const NameId id = intern(name.empty() ? std::string_view("kernel") : name);
  kernel_names_.emplace(std::string(name), id);
  return id;
}

TrackId GpuTraceAssembler::stream_track(std::uint32_t device, std::uint32_t stream) {
  const std::uint64_t key = (std::uint64_t{device} << 32) | stream;
  if (const auto it = stream_tracks_.find(key); it != stream_tracks_.end()) return it->second;
  const std::int64_t stream_id = stream == kNoStream ? -1 : static_cast<std::int64_t>(stream);
  const TrackId track = recorder_.gpu_stream_track(device, stream_id);
  stream_tracks_.emplace(key, track);
  return track;
}

GpuActivityRow GpuTraceAssembler::device_row(const DeviceActivityRecord& record,
                                             std::uint32_t device) {
  GpuActivityRow row;
  row.track = stream_track(device, record.stream);
  row.start_ns = trace_ns(record.start_ns);
  row.id = next_row_id_++;
  row.dur_ns = static_cast<std::int64_t>(record.end_ns - record.start_ns);
  row.kind = record.kind;
  if (record.correlation_id != 0) row.correlation_id = record.correlation_id;
  switch (record.kind) {
    case GpuActivityKind::kKernel:
      row.name = kernel_name(record.name);
      row.launch = record.launch;
      ++counts_.kernels;
      if (record.graph_id != 0) ++counts_.graph_kernels;
      break;
    case GpuActivityKind::kMemcpy:
      row.name = intern(memcpy_name(record.copy_kind));
      row.bytes = record.bytes;
      row.copy_kind = record.copy_kind;
      ++counts_.memcpys;
      break;
    case GpuActivityKind::kMemset:
      row.name = intern("memset");
      row.bytes = record.bytes;
      ++counts_.memsets;
      break;
    case GpuActivityKind::kSync:
      row.name = intern(sync_name(record.sync));
      ++counts_.syncs;
      break;
  }
  return row;
}

void GpuTraceAssembler::add(std::span<const DeviceActivityRecord> records) {
  std::vector<GpuActivityRow> rows;
  rows.reserve(records.size());
  {
    std::lock_guard lock(mutex_);
    for (const DeviceActivityRecord& record : records) {
      if (!is_complete(record.start_ns, record.end_ns)) {
        ++counts_.incomplete;
        continue;
      }
      if (record.kind != GpuActivityKind::kSync) {
        learn_context_locked(record.context, record.device);
        rows.push_back(device_row(record, record.device));
      } else if (const auto it = context_devices_.find(record.context);
                 it != context_devices_.end()) {
        rows.push_back(device_row(record, it->second));
      } else {
        waiting_syncs_.push_back(record);
      }
    }
    place_waiting_syncs(rows);
  }
  if (!rows.empty()) recorder_.add_gpu_activities(std::move(rows));
}

void GpuTraceAssembler::add(std::span<const ApiActivityRecord> records) {
  std::vector<ApiCallRow> rows;
  rows.reserve(records.size());
  {
    std::lock_guard lock(mutex_);
    for (const ApiActivityRecord& record : records) {
      if (!is_complete(record.start_ns, record.end_ns)) {
        ++counts_.incomplete;
        continue;
      }
      auto thread = thread_tracks_.find(record.thread_id);
      if (thread == thread_tracks_.end())
        thread = thread_tracks_
                     .emplace(record.thread_id, recorder_.cuda_api_thread_track(record.thread_id))
                     .first;
      const std::uint64_t name_key =
          (std::uint64_t{static_cast<std::uint8_t>(record.kind)} << 32) | record.callback_id;
      auto name = api_names_.find(name_key);
      if (name == api_names_.end())
        name = api_names_.emplace(name_key, intern(namer_(record.kind, record.callback_id))).first;
      ApiCallRow row;
      row.track = thread->second;
      row.start_ns = trace_ns(record.start_ns);
      row.id = next_row_id_++;
      row.dur_ns = static_cast<std::int64_t>(record.end_ns - record.start_ns);
      row.kind = record.kind;
      row.name = name->second;
      if (record.correlation_id != 0) row.correlation_id = record.correlation_id;
      rows.push_back(row);
      ++counts_.api_calls;
    }
  }
  if (!rows.empty()) recorder_.add_api_calls(std::move(rows));
}

void GpuTraceAssembler::learn_context_locked(std::uint32_t context, std::uint32_t device) {
  context_devices_.try_emplace(context, device);
}

void GpuTraceAssembler::learn_context(std::uint32_t context, std::uint32_t device) {
  std::vector<GpuActivityRow> rows;
  {
    std::lock_guard lock(mutex_);
    learn_context_locked(context, device);
    place_waiting_syncs(rows);
  }
  if (!rows.empty()) recorder_.add_gpu_activities(std::move(rows));
}

void GpuTraceAssembler::place_waiting_syncs(std::vector<GpuActivityRow>& rows) {
  std::erase_if(waiting_syncs_, [&](const DeviceActivityRecord& record) {
    const auto it = context_devices_.find(record.context);
    if (it == context_devices_.end()) return false;
    rows.push_back(device_row(record, it->second));
    return true;
  });
}

void GpuTraceAssembler::count_dropped(std::uint64_t records) {
  std::lock_guard lock(mutex_);
  counts_.dropped += records;
}

void GpuTraceAssembler::finish() {
  std::vector<GpuActivityRow> rows;
  GpuTraceCounts counts;
  {
    std::lock_guard lock(mutex_);
    // One process drives one device in our trainer: a sync on a context that
    // never ran a kernel or copy still belongs to that device.
    std::vector<std::uint32_t> devices;
    for (const auto& [context, device] : context_devices_)
      if (std::find(devices.begin(), devices.end(), device) == devices.end())
        devices.push_back(device);
    for (const DeviceActivityRecord& record : waiting_syncs_) {
      if (devices.size() == 1)
        rows.push_back(device_row(record, devices.front()));
      else
        ++counts_.unplaced_syncs;
    }
    waiting_syncs_.clear();
    counts = counts_;
  }
  if (!rows.empty()) recorder_.add_gpu_activities(std::move(rows));
  const std::pair<std::string_view, std::uint64_t> meta[] = {
      {"gpu.kernels", counts.kernels},
      {"gpu.memcpys", counts.memcpys},
      {"gpu.memsets", counts.memsets},
      {"gpu.syncs", counts.syncs},
      {"gpu.api_calls", counts.api_calls},
      {"gpu.graph_kernels", counts.graph_kernels},
      {"gpu.incomplete_records", counts.incomplete},
      {"gpu.unplaced_syncs", counts.unplaced_syncs},
      {"gpu.dropped_records", counts.dropped},
  };
  for (const auto& [key, value] : meta) recorder_.set_meta(key, std::to_string(value));
}

GpuTraceCounts GpuTraceAssembler::counts() const {
  std::lock_guard lock(mutex_);
  return counts_;
}

}  // namespace parity::profiler
