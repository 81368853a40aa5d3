#include "event_decoder.hpp"

#include <algorithm>
#include <bit>

#include "parity/core/dtype.hpp"

namespace parity::profiler {

EventDecoder::EventDecoder(TraceWriter& writer, const TickConverter& clock,
                           std::function<TrackId()> allocate_track, std::int64_t rank)
    : writer_(writer), clock_(clock), allocate_track_(std::move(allocate_track)), rank_(rank) {}

std::int64_t EventDecoder::trace_ns(std::uint64_t time, std::uint16_t flags) const {
  return static_cast<TimeBase>(flags) == TimeBase::kMonotonicNs
             ? clock_.monotonic_to_trace_ns(static_cast<std::int64_t>(time))
             : clock_.to_trace_ns(time);
}

TrackId EventDecoder::track_for(std::unordered_map<NameId, TrackId>& tracks, TrackKind kind,
                                NameId name) {
  if (const auto it = tracks.find(name); it != tracks.end()) return it->second;
  const TrackId id = allocate_track_();
  writer_.add(TrackRow{id, kind, name, {}, {}, {}, {}});
  tracks.emplace(name, id);
  return id;
}

void EventDecoder::begin_range(ThreadState& state, const EventSlot& slot) {
  const std::size_t open = state.stack.size() - state.closed_prefix;
  OpenRange range{next_range_id_++, clock_.to_trace_ns(slot.ticks), slot.name, static_cast<Category>(slot.category),
                  std::nullopt, static_cast<std::uint32_t>(open), std::nullopt};
  if (slot.flags & 1u) range.arg = static_cast<std::int64_t>(slot.a);
  if (open > 0) range.parent = state.stack.back().id;
  state.stack.push_back(range);
}

void EventDecoder::write_range(const OpenRange& range, TrackId track, std::int64_t end) {
  const std::int64_t start_ns = range.start_ns;
  const std::int64_t end_ns = std::max(start_ns, end);
  writer_.add(RangeRow{track, start_ns, range.id, end_ns - start_ns, range.name, range.category,
                       range.depth, range.parent, range.arg});
  ++rows_written_;
  if (range.category == Category::kStep && range.arg) {
    writer_.add(StepRow{*range.arg, track, start_ns, end_ns});
    ++rows_written_;
  }
}

void EventDecoder::end_range(ThreadState& state, TrackId track, std::int64_t end_ns) {
  if (state.stack.empty()) return;  // cannot happen with RAII scopes; never crash on it
  if (state.stack.size() <= state.closed_prefix) {
    // Its row was written when the capture window closed.
    state.stack.pop_back();
    state.closed_prefix = state.stack.size();
    return;
  }
  write_range(state.stack.back(), track, end_ns);
  state.stack.pop_back();
}

void EventDecoder::close_open_ranges(Ticks at) {
  const std::int64_t at_ns = clock_.to_trace_ns(at);
  for (auto& [buffer, state] : threads_) {
    for (std::size_t i = state.closed_prefix; i < state.stack.size(); ++i)
      write_range(state.stack[i], buffer->track(), at_ns);
    state.closed_prefix = state.stack.size();
  }
}

void EventDecoder::decode(ThreadBuffer& buffer, std::uint64_t end) {
  ThreadState& state = threads_[&buffer];
  const TrackId track = buffer.track();
  for (std::uint64_t position = buffer.consumed(); position < end; ++position) {
    const EventSlot& slot = buffer.slot(position);
    switch (slot.kind) {
      case EventKind::kRangeBegin:
        begin_range(state, slot);
        break;
      case EventKind::kRangeEnd:
        end_range(state, track, clock_.to_trace_ns(slot.ticks));
        break;
      case EventKind::kInstant: {
        InstantRow row{track, clock_.to_trace_ns(slot.ticks), slot.name,
                       static_cast<Category>(slot.category), std::nullopt};
        if (slot.flags & 1u) row.arg = static_cast<std::int64_t>(slot.a);
        writer_.add(row);
        ++rows_written_;
        break;
      }
      case EventKind::kCounter:
        writer_.add(CounterRow{track_for(counter_tracks_, TrackKind::kCounter, slot.name),
                               clock_.to_trace_ns(slot.ticks), std::bit_cast<double>(slot.a)});
        ++rows_written_;
        break;
      case EventKind::kQueueSample:
        writer_.add(QueueSampleRow{track_for(queue_tracks_, TrackKind::kQueue, slot.name),
                                   clock_.to_trace_ns(slot.ticks),
                                   static_cast<std::uint32_t>(slot.a & 0xffffffffu),
                                   static_cast<std::uint32_t>(slot.a >> 32),
                                   static_cast<QueueRole>(slot.category), track,
                                   static_cast<std::int64_t>(slot.b)});
        ++rows_written_;
        break;
      case EventKind::kGradReady:
        writer_.add(GradReadyRow{static_cast<std::int64_t>(slot.b), slot.name,
                                 trace_ns(slot.ticks, slot.flags),
                                 static_cast<std::int64_t>(slot.a), track});
        ++rows_written_;
        break;
      case EventKind::kCollective: {
        // The producer publishes both slots of a collective at once.
        const EventSlot& tail = buffer.slot(++position);
        const std::int64_t start_ns = trace_ns(slot.ticks, slot.flags);
        const std::int64_t end_ns = std::max(start_ns, trace_ns(slot.a, slot.flags));
        writer_.add(CollectiveRow{track_for(lane_tracks_, TrackKind::kCollective, slot.name),
                                  start_ns, end_ns - start_ns,
                                  static_cast<CollectiveOp>(slot.category),
                                  static_cast<std::int64_t>(slot.b),
                                  std::string(dtype_name(static_cast<DType>(tail.flags))),
                                  tail.name, static_cast<std::int64_t>(tail.a & 0xffffffffu),
                                  static_cast<std::int64_t>(tail.a >> 32), rank_,
                                  static_cast<std::int64_t>(tail.b)});
        ++rows_written_;
        break;
      }
      case EventKind::kCollectiveTail:
        break;  // consumed with its kCollective slot
    }
  }
  buffer.release_until(end);
}

}  // namespace parity::profiler
