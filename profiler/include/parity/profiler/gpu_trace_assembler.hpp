// GpuTraceAssembler: turns decoded CUPTI activity records into trace rows.
// It maps the collector's clock onto the trace clock, puts device work on one
// track per (device, stream) and API calls on their host thread's track,
// names memcpy/memset/sync records, interns kernel names, keeps sync records
// until their context's device is known, and counts what it saw. Records may
// arrive in any order and from several CUPTI threads at once.
//
// A kernel is correlated to its launch through correlation_id (stored on both
// rows; a CUDA Graph launch's kernels all carry the launch's id) and to its
// layer and phase through the launch call's place on its thread's track, see
// gpu_attribution.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "parity/profiler/gpu_activity_record.hpp"
#include "parity/profiler/recorder.hpp"

namespace parity::profiler {

struct GpuTraceCounts {
  std::uint64_t kernels = 0, memcpys = 0, memsets = 0, syncs = 0, api_calls = 0;
  std::uint64_t graph_kernels = 0;   // kernels run as nodes of a CUDA Graph
  std::uint64_t incomplete = 0;      // records without a start or end time, not stored
  std::uint64_t unplaced_syncs = 0;  // sync records whose context never named its device
  std::uint64_t dropped = 0;         // records CUPTI reported lost (full or refused buffers)
};

class GpuTraceAssembler {
 public:
  // Names an API call from its domain and CUPTI callback id.
  using ApiNamer = std::function<std::string(ApiKind, std::uint32_t callback_id)>;

  // clock_offset_ns is added to every record time to give CLOCK_MONOTONIC:
  // 0 when CUPTI's timestamps come from our timestamp callback.
  GpuTraceAssembler(Recorder& recorder, ApiNamer namer, std::int64_t clock_offset_ns = 0);

  void add(std::span<const DeviceActivityRecord> records);
  void add(std::span<const ApiActivityRecord> records);
  // A context's device, from a context record; kernels and copies teach it too.
  void learn_context(std::uint32_t context, std::uint32_t device);
  void count_dropped(std::uint64_t records);

  // Places the sync records still waiting for their context's device (on the
  // only device seen, if there was one) and writes the counts into the
  // trace's meta table as gpu.kernels, gpu.dropped_records, ...
  void finish();
  GpuTraceCounts counts() const;

 private:
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const {
      return std::hash<std::string_view>{}(text);
    }
  };

  void learn_context_locked(std::uint32_t context, std::uint32_t device);
  void place_waiting_syncs(std::vector<GpuActivityRow>& rows);
  GpuActivityRow device_row(const DeviceActivityRecord& record, std::uint32_t device);
  NameId kernel_name(std::string_view name);
  TrackId stream_track(std::uint32_t device, std::uint32_t stream);
  std::int64_t trace_ns(std::uint64_t collector_ns) const;

  Recorder& recorder_;
  ApiNamer namer_;
  std::int64_t clock_offset_ns_;

  mutable std::mutex mutex_;
  GpuTraceCounts counts_;
  std::int64_t next_row_id_ = 1;
  std::unordered_map<std::string, NameId, StringHash, std::equal_to<>> kernel_names_;
  std::unordered_map<std::uint64_t, NameId> api_names_;       // kind << 32 | cbid
  std::unordered_map<std::uint64_t, TrackId> stream_tracks_;  // device << 32 | stream
  std::unordered_map<std::uint32_t, TrackId> thread_tracks_;  // CUPTI thread id
  std::unordered_map<std::uint32_t, std::uint32_t> context_devices_;
  std::vector<DeviceActivityRecord> waiting_syncs_;  // context's device not known yet
};

}  // namespace parity::profiler
