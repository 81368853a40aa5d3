// TimelineData: one trace held for drawing, compactly. Every lane of the
// timeline (a host thread, a GPU stream, a collective lane, a counter, a data
// queue) holds rows; an event row holds disjoint events sorted by start, as
// three parallel arrays (start, end, name: 20 bytes an event, 24 with the
// CUDA correlation id), so the painter finds what is visible by binary search
// and folds what is too small to see. What a click needs beyond that (a
// range's argument, a kernel's launch configuration) is read from the
// database on demand (event_details.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "parity/gui/view_state.hpp"
#include "parity/profiler/trace_rows.hpp"

namespace parity::gui {

// The table an event row's events come from; event_details reads it.
enum class EventSource : std::uint8_t { kRange, kApiCall, kGpuActivity, kCollective, kInstant };

struct EventRow {
  std::string title;  // "depth 2", "CUDA API", "kernels"
  EventSource source = EventSource::kRange;
  std::uint32_t depth = 0;  // of kRange rows
  std::vector<std::int64_t> starts, ends;
  std::vector<std::uint32_t> names;         // string ids
  std::vector<std::uint32_t> correlations;  // kApiCall and kGpuActivity rows only
  bool correlations_sorted = true;          // the usual case: launch order

  std::size_t size() const { return starts.size(); }
  // The first event that ends at or after t (the first one visible from t on).
  std::size_t first_ending_from(std::int64_t t) const;
  // The first event that starts at or after t.
  std::size_t first_starting_from(std::int64_t t) const;
  std::size_t memory_bytes() const;
};

// A time series drawn as a step line; min/max summaries of fixed blocks keep
// a zoomed-out column from reading every sample.
struct CounterRow {
  static constexpr std::size_t kBlock = 256;
  std::string title;
  std::vector<std::int64_t> times;
  std::vector<double> values;
  std::vector<double> block_min, block_max;  // of samples [b*kBlock, (b+1)*kBlock)
  double min = 0, max = 0;

  std::size_t size() const { return times.size(); }
  void finish();  // computes min, max and the block summaries
  // Min and max of samples [first, last).
  std::pair<double, double> min_max(std::size_t first, std::size_t last) const;
  std::size_t memory_bytes() const;
};

enum class LaneKind : std::uint8_t { kThread, kGpuStream, kCollective, kCounter, kQueue };

struct Lane {
  LaneKind kind = LaneKind::kThread;
  std::string title;  // the track's label
  profiler::TrackId track = 0;
  std::vector<EventRow> rows;
  std::vector<CounterRow> counters;  // counter and queue lanes
  std::size_t row_count() const { return rows.size() + counters.size(); }
};

struct StepSpan {
  std::int64_t step = 0, start_ns = 0, end_ns = 0;
};

struct TimelineData {
  std::string path;
  std::vector<std::string> strings;  // by name id
  std::vector<Lane> lanes;
  std::vector<StepSpan> steps;  // by step number
  TimeWindow extent{0, 0};
  std::int64_t rank = 0;
  std::uint64_t events = 0;  // events and counter samples held

  const std::string& name(std::uint32_t id) const;
  std::size_t memory_bytes() const;  // of the event and counter arrays and strings
  const StepSpan* step(std::int64_t number) const;
  // The event a kernel was launched by, or the kernel an API call launched:
  // the one with the same correlation id. Correlation ids grow in launch
  // order, so it is found by binary search in each candidate row.
  std::optional<EventRef> correlated(const EventRef& event) const;
};

}  // namespace parity::gui
