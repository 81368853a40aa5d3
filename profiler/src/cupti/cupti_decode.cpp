#include "cupti_decode.hpp"

#include <cctype>

namespace parity::profiler::cupti {
namespace {

// Every record struct starts with its kind; CUPTI aligns records to 8 bytes.
template <typename Record>
const Record& as(const CUpti_Activity& record) {
  return reinterpret_cast<const Record&>(record);
}

// The fields kernel, memcpy and memset records share.
template <typename Record>
DeviceActivityRecord device_work(GpuActivityKind kind, const Record& work) {
  DeviceActivityRecord record;
  record.kind = kind;
  record.start_ns = work.start;
  record.end_ns = work.end;
  record.device = work.deviceId;
  record.context = work.contextId;
  record.stream = work.streamId;
  record.correlation_id = work.correlationId;
  record.graph_id = work.graphId;
  return record;
}

DeviceActivityRecord kernel(const CUpti_ActivityKernel10& k) {
  DeviceActivityRecord record = device_work(GpuActivityKind::kKernel, k);
  record.name = k.name ? std::string_view(k.name) : std::string_view();
  LaunchConfig launch;
  launch.grid = {static_cast<std::uint32_t>(k.gridX), static_cast<std::uint32_t>(k.gridY),
                 static_cast<std::uint32_t>(k.gridZ)};
  launch.block = {static_cast<std::uint32_t>(k.blockX), static_cast<std::uint32_t>(k.blockY),
                  static_cast<std::uint32_t>(k.blockZ)};
  launch.shared_bytes = static_cast<std::uint32_t>(k.staticSharedMemory + k.dynamicSharedMemory);
  launch.registers = k.registersPerThread;
  record.launch = launch;
  return record;
}

DeviceActivityRecord memcpy_record(const CUpti_ActivityMemcpy6& m) {
  DeviceActivityRecord record = device_work(GpuActivityKind::kMemcpy, m);
  record.bytes = static_cast<std::int64_t>(m.bytes);
  record.copy_kind = m.copyKind;
  return record;
}

DeviceActivityRecord memset_record(const CUpti_ActivityMemset4& m) {
  DeviceActivityRecord record = device_work(GpuActivityKind::kMemset, m);
  record.bytes = static_cast<std::int64_t>(m.bytes);
  return record;
}

SyncKind sync_kind(CUpti_ActivitySynchronizationType type) {
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
      return SyncKind::kEvent;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
      return SyncKind::kStreamWaitEvent;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
      return SyncKind::kStream;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
      return SyncKind::kContext;
    default:
      return SyncKind::kUnknown;
  }
}

DeviceActivityRecord sync_record(const CUpti_ActivitySynchronization2& s) {
  DeviceActivityRecord record;
  record.kind = GpuActivityKind::kSync;
  record.start_ns = s.start;
  record.end_ns = s.end;
  record.context = s.contextId;
  record.stream = s.streamId;
  record.correlation_id = s.correlationId;
  record.sync = sync_kind(s.type);
  return record;
}

ApiActivityRecord api_record(const CUpti_ActivityAPI& a, ApiKind kind) {
  ApiActivityRecord record;
  record.kind = kind;
  record.callback_id = a.cbid;
  record.start_ns = a.start;
  record.end_ns = a.end;
  record.thread_id = a.threadId;
  record.correlation_id = a.correlationId;
  return record;
}

}  // namespace

void DecodedRecords::clear() {
  device.clear();
  api.clear();
  contexts.clear();
  other = 0;
}

void decode_record(const CUpti_Activity& record, DecodedRecords& out) {
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      out.device.push_back(kernel(as<CUpti_ActivityKernel10>(record)));
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      out.device.push_back(memcpy_record(as<CUpti_ActivityMemcpy6>(record)));
      break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      out.device.push_back(memset_record(as<CUpti_ActivityMemset4>(record)));
      break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      out.device.push_back(sync_record(as<CUpti_ActivitySynchronization2>(record)));
      break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      out.api.push_back(api_record(as<CUpti_ActivityAPI>(record), ApiKind::kRuntime));
      break;
    case CUPTI_ACTIVITY_KIND_DRIVER:
      out.api.push_back(api_record(as<CUpti_ActivityAPI>(record), ApiKind::kDriver));
      break;
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
      const auto& context = as<CUpti_ActivityContext3>(record);
      out.contexts.emplace_back(context.contextId, context.deviceId);
      break;
    }
    default:
      ++out.other;
      break;
  }
}

std::string without_version_suffix(std::string_view name) {
  const auto suffix = name.rfind("_v");
  if (suffix == std::string_view::npos || suffix + 2 == name.size()) return std::string(name);
  for (std::size_t i = suffix + 2; i < name.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return std::string(name);
  return std::string(name.substr(0, suffix));
}

}  // namespace parity::profiler::cupti
