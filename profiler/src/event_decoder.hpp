// EventDecoder: turns the slots of the per-thread rings into trace rows. It
// pairs range begins and ends (per thread, LIFO), assigns range ids in begin
// order with depth and parent, converts ticks to trace nanoseconds, and
// creates the tracks of counters, queues and collective lanes on first use.
// Owned and used by the writer thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "parity/profiler/clock.hpp"
#include "parity/profiler/thread_buffer.hpp"
#include "parity/profiler/trace_writer.hpp"

namespace parity::profiler {

class EventDecoder {
 public:
  EventDecoder(TraceWriter& writer, const TickConverter& clock,
               std::function<TrackId()> allocate_track, std::int64_t rank);

  // Decodes and writes the slots in [buffer.consumed(), end), then releases them.
  void decode(ThreadBuffer& buffer, std::uint64_t end);
  // Ends every open range at `at` (the capture window closed); their own ends,
  // when they come, are then ignored.
  void close_open_ranges(Ticks at);
  std::uint64_t rows_written() const { return rows_written_; }

 private:
  struct OpenRange {
    std::int64_t id;
    std::int64_t start_ns;  // converted when the begin is decoded (see TickConverter)
    NameId name;
    Category category;
    std::optional<std::int64_t> arg;
    std::uint32_t depth;
    std::optional<std::int64_t> parent;
  };
  struct ThreadState {
    std::vector<OpenRange> stack;
    std::size_t closed_prefix = 0;  // the bottom entries already written by close_open_ranges
  };

  void begin_range(ThreadState& state, const EventSlot& slot);
  void end_range(ThreadState& state, TrackId track, std::int64_t end_ns);
  void write_range(const OpenRange& range, TrackId track, std::int64_t end_ns);
  TrackId track_for(std::unordered_map<NameId, TrackId>& tracks, TrackKind kind, NameId name);
  // A slot's time on the trace clock, `flags` saying its TimeBase.
  std::int64_t trace_ns(std::uint64_t time, std::uint16_t flags) const;

  TraceWriter& writer_;
  const TickConverter& clock_;
  std::function<TrackId()> allocate_track_;
  std::int64_t rank_;
  std::unordered_map<const ThreadBuffer*, ThreadState> threads_;
  std::unordered_map<NameId, TrackId> counter_tracks_, queue_tracks_, lane_tracks_;
  std::int64_t next_range_id_ = 1;
  std::uint64_t rows_written_ = 0;
};

}  // namespace parity::profiler
