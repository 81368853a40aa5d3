// TraceData: one rank's trace database loaded into compact, time-sorted
// vectors for analysis. Loading reads each table once in its clustered order
// and resolves every range's context (its step, phase and layer) on the way,
// so the analyses that follow never search the database again.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "parity/profiler/launch_join.hpp"
#include "parity/profiler/trace_rows.hpp"

namespace parity::analyzer {

inline constexpr std::int64_t kNoStep = -1;

struct TraceRange {
  std::int64_t start_ns = 0, end_ns = 0;
  std::int64_t step = kNoStep;  // the enclosing step range's step number (its own, for a step)
  profiler::TrackId track = 0;
  profiler::NameId name = 0;
  profiler::NameId phase = 0;  // the enclosing phase range's name (its own, for a phase); 0 none
  profiler::NameId layer = 0;  // the nearest enclosing layer range's name; 0 none
  profiler::Category category = profiler::Category::kUser;
  std::uint8_t depth = 0;
  std::int64_t dur_ns() const { return end_ns - start_ns; }
};

struct TraceStep {
  std::int64_t step = 0;
  profiler::TrackId track = 0;
  std::int64_t start_ns = 0, end_ns = 0;
  std::int64_t dur_ns() const { return end_ns - start_ns; }
};

struct TraceQueueSample {
  std::int64_t ts_ns = 0, wait_ns = 0;
  std::uint32_t depth = 0, capacity = 0;
  profiler::TrackId track = 0;  // the queue
  profiler::QueueRole role = profiler::QueueRole::kConsumer;
};

struct TraceCollective {
  std::int64_t start_ns = 0, end_ns = 0, bytes = 0, bucket = 0, step = 0;
  profiler::TrackId track = 0;
  profiler::CollectiveOp op = profiler::CollectiveOp::kAllReduce;
  std::int64_t dur_ns() const { return end_ns - start_ns; }
};

struct TraceGpuActivity {
  std::int64_t start_ns = 0, end_ns = 0;
  std::int64_t correlation_id = -1;  // -1: none
  profiler::TrackId track = 0;
  profiler::NameId name = 0;
  profiler::GpuActivityKind kind = profiler::GpuActivityKind::kKernel;
  std::int64_t dur_ns() const { return end_ns - start_ns; }
};

struct TraceApiCall {
  std::int64_t correlation_id = -1;
  std::int64_t start_ns = 0, end_ns = 0;
};

struct CounterPoint {
  std::int64_t ts_ns = 0;
  double value = 0;
};

struct TraceData {
  std::string path;
  std::map<std::string, std::string> meta;
  std::int64_t rank = 0, world_size = 1;
  bool complete = false;
  std::uint64_t dropped_records = 0;
  std::vector<std::string> strings;
  std::vector<profiler::TrackRow> tracks;

  std::vector<TraceRange> ranges;                             // by (track, start)
  std::vector<TraceStep> steps;                               // by step number
  std::vector<TraceQueueSample> queue_samples;                // by (queue, time)
  std::vector<TraceCollective> collectives;                   // by start
  std::vector<TraceGpuActivity> gpu_activities;               // by (stream, start)
  profiler::LaunchIndex<TraceApiCall> launches;               // API calls by correlation id
  std::map<std::string, std::vector<CounterPoint>> counters;  // by series name, then time
  std::uint64_t events = 0;                                   // rows loaded from the event tables

  const std::string& name(profiler::NameId id) const;
  const profiler::TrackRow* track(profiler::TrackId id) const;
  std::string track_label(profiler::TrackId id) const;  // "main", "GPU 0 stream 7"
};

// A track's label: its name, else what it is ("GPU 0 stream 7", "track 3").
std::string track_label(const profiler::TrackRow& row, const std::string& name);

// Loads a trace; throws parity::Error for a file that is not a readable
// Parity trace (see profiler::TraceReader) or holds inconsistent rows.
// `progress` receives the fraction of tables read.
TraceData load_trace(const std::filesystem::path& path,
                     const std::function<void(double)>& progress = {});

}  // namespace parity::analyzer
