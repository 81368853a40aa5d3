// GPU and CUDA API activity as the CUPTI collector decodes it from CUPTI's
// activity buffers. These structs hold no CUPTI type, so everything after
// decoding (clock, tracks, names, graph launches, storage) builds and is tested
// on machines without CUDA, fed with synthetic records.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "parity/profiler/trace_rows.hpp"

namespace parity::profiler {

// CUPTI's "no stream" id (context-wide synchronization has none).
inline constexpr std::uint32_t kNoStream = 0xFFFFFFFFu;

// Synchronization records: what the host waited for.
enum class SyncKind : std::uint8_t { kUnknown, kEvent, kStreamWaitEvent, kStream, kContext };

// Work on the device (kernel, memcpy, memset) or a host wait on it (sync).
struct DeviceActivityRecord {
  GpuActivityKind kind = GpuActivityKind::kKernel;
  std::uint64_t start_ns = 0, end_ns = 0;  // collector clock, see GpuTraceAssembler
  std::uint32_t device = 0;                // sync records carry none: learned from the context
  std::uint32_t context = 0;
  std::uint32_t stream = kNoStream;
  std::uint32_t correlation_id = 0;       // the launching API call's; 0 = none
  std::string_view name;                  // kernels: the (mangled) function; must outlive add()
  std::optional<LaunchConfig> launch;     // kernels
  std::optional<std::int64_t> bytes;      // memcpy, memset
  std::optional<std::int64_t> copy_kind;  // memcpy: CUPTI's CUpti_ActivityMemcpyKind
  SyncKind sync = SyncKind::kUnknown;     // sync records
  std::uint32_t graph_id = 0;             // nonzero: launched as a node of this CUDA Graph
};

// One CUDA runtime or driver API call on a host thread.
struct ApiActivityRecord {
  ApiKind kind = ApiKind::kRuntime;
  std::uint32_t callback_id = 0;  // CUPTI's cbid in the runtime or driver domain
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t thread_id = 0;  // CUPTI's: the low 32 bits of pthread_self()
  std::uint32_t correlation_id = 0;
};

}  // namespace parity::profiler
