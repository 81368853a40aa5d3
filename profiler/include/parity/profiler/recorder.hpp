// parity::profiler::Recorder: records ranges, instants, counters, queue
// samples, gradient-ready and collective events from any thread into a trace
// database. The hot path (Scope, instant, counter, ...) writes 32-byte slots
// into a per-thread ring: no lock, no allocation, no string formatting. A
// writer thread drains the rings into SQLite in batched transactions and
// commits at least once per flush interval and at the end of every step.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parity/core/dtype.hpp"
#include "parity/profiler/clock.hpp"
#include "parity/profiler/thread_buffer.hpp"
#include "parity/profiler/trace_rows.hpp"

namespace parity::profiler {

struct RecorderOptions {
  std::filesystem::path path;            // the trace database to create
  std::uint32_t slots_per_thread = 1u << 17;  // 4 MiB ring per recording thread
  std::chrono::milliseconds drain_interval{10};
  std::chrono::milliseconds flush_interval{1000};  // longest time a record stays uncommitted
  bool capture_at_start = true;          // false: record nothing until start()
  std::string command_line;
  std::string config;                    // the run's configuration text (YAML or JSON)
  std::int64_t rank = 0;
  std::int64_t world_size = 1;
};

struct RecorderStats {
  std::uint64_t rows_written = 0;   // rows committed or pending commit
  std::uint64_t dropped = 0;        // records lost to full rings or a failed writer
  std::uint64_t commits = 0;
  std::int64_t writer_busy_ns = 0;  // time the writer thread spent draining and committing
  bool writer_failed = false;       // the database became unwritable; recording carries on
};

// A collective operation as the communication code measured it.
struct CollectiveEvent {
  NameId lane = 0;  // the collective lane's name, e.g. "allreduce"
  CollectiveOp op = CollectiveOp::kAllReduce;
  Ticks start = 0, end = 0;  // read_ticks() before and after
  std::uint64_t bytes = 0;
  DType dtype = DType::kFloat32;
  std::uint32_t bucket = 0;
  std::uint32_t first_param = 0, last_param = 0;
  TimeBase time_base = TimeBase::kTicks;  // of start and end
};

// Interns a string in the process-wide string table. Ids are stable for the
// life of the process, so callers may cache them in statics. Takes a lock.
NameId intern(std::string_view text);

namespace detail {
struct ThreadCache {
  std::uint64_t recorder_serial = 0;
  ThreadBuffer* buffer = nullptr;
};
inline constinit thread_local ThreadCache tls_cache{};
}  // namespace detail

class Recorder {
 public:
  // Creates the database (it must not exist) and starts the writer thread.
  explicit Recorder(RecorderOptions options);
  // Stops capturing, writes everything recorded, and finalizes the database.
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // --- capture window ---
  void start();
  // Stops capturing: ranges still open are closed at this moment, and nothing
  // is recorded until start() is called again. Waits until all is written.
  void stop();
  bool capturing() const { return capturing_.load(std::memory_order_relaxed); }

  // --- hot path: any thread, lock-free ---
  void instant(NameId name, Category category, std::optional<std::int64_t> arg = {});
  void counter(NameId name, double value);
  void queue_sample(NameId queue, QueueRole role, std::uint32_t depth, std::uint32_t capacity,
                    std::int64_t wait_ns);
  void gradient_ready(std::uint32_t param_index, std::uint64_t bytes);
  // A gradient that became ready at `monotonic_ns` (CLOCK_MONOTONIC), e.g. on a GPU.
  void gradient_ready_at(std::uint32_t param_index, std::uint64_t bytes, std::int64_t monotonic_ns);
  void collective(const CollectiveEvent& event);

  // --- cold path: any thread, takes a lock ---
  void name_thread(std::string_view name);  // names the calling thread's track
  void set_meta(std::string_view key, std::string_view value);
  void add_parameter(ParameterRow row);
  // A GPU stream's track; stream < 0 is the device's track for work on no one
  // stream (context-wide synchronization).
  TrackId gpu_stream_track(std::int64_t device, std::int64_t stream);
  // The host thread track of a CUDA API call as CUPTI identifies its thread
  // (the low 32 bits of pthread_self()): the recording thread's own track when
  // that thread has recorded anything, else a track made for it.
  TrackId cuda_api_thread_track(std::uint32_t cupti_thread_id);
  void add_gpu_activities(std::vector<GpuActivityRow> rows);  // times already on the trace clock
  void add_api_calls(std::vector<ApiCallRow> rows);
  std::int64_t now_ns() const;  // the trace clock, for records with CLOCK_MONOTONIC times
  std::int64_t trace_ns_from_monotonic(std::int64_t monotonic) const;

  // Waits until everything recorded before the call is committed.
  void flush();
  // Asks the writer to commit soon, without waiting (used at every step end).
  void request_flush();

  RecorderStats stats() const;
  std::int64_t current_step() const { return current_step_.load(std::memory_order_relaxed); }
  const std::filesystem::path& path() const;

  // A range opened and closed by separate calls on the calling thread, for
  // ranges that are not scopes (NVTX push and pop); Scope is the RAII form.
  // Returns the ring its end goes to (end_range), or nullptr when nothing was
  // recorded (no capture, or a full ring), in which case no end is due.
  ThreadBuffer* begin_range(NameId name, Category category, std::optional<std::int64_t> arg = {}) {
    if (!capturing()) return nullptr;
    ThreadBuffer* buffer = thread_buffer();
    const EventSlot slot{read_ticks(), EventKind::kRangeBegin, static_cast<std::uint8_t>(category),
                         static_cast<std::uint16_t>(arg.has_value()), name,
                         static_cast<std::uint64_t>(arg.value_or(0)), 0};
    if (!buffer->push(&slot, 1, buffer->open_ranges() + 1)) return nullptr;
    buffer->range_opened();
    return buffer;
  }
  static void end_range(ThreadBuffer& buffer) {
    EventSlot slot{};
    slot.ticks = read_ticks();
    slot.kind = EventKind::kRangeEnd;
    buffer.push(&slot, 1, 0);  // room was reserved when the range began
    buffer.range_closed();
  }

  // The calling thread's ring (registers the thread on first use).
  ThreadBuffer* thread_buffer() {
    const auto& cache = detail::tls_cache;
    if (cache.recorder_serial == serial_) [[likely]] return cache.buffer;
    return register_thread();
  }
  void on_step_begin(std::int64_t step) { current_step_.store(step, std::memory_order_relaxed); }

 private:
  struct Impl;
  ThreadBuffer* register_thread();
  bool push(const EventSlot* slots, std::uint32_t count) {
    ThreadBuffer* buffer = thread_buffer();
    return buffer->push(slots, count, buffer->open_ranges());
  }

  std::atomic<bool> capturing_{false};
  std::atomic<std::int64_t> current_step_{0};
  std::uint64_t serial_;
  std::unique_ptr<Impl> impl_;
};

// A range on the calling thread's track, from construction to destruction.
// Ranges nest; a kStep range's arg is its step number and its end asks the
// writer to commit.
class Scope {
 public:
  Scope(Recorder& recorder, NameId name, Category category = Category::kUser) {
    begin(recorder, name, category, 0, false);
  }
  Scope(Recorder& recorder, NameId name, Category category, std::int64_t arg) {
    begin(recorder, name, category, arg, true);
  }
  ~Scope() {
    if (!buffer_) return;
    Recorder::end_range(*buffer_);
    if (flush_on_end_) flush_on_end_->request_flush();
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  void begin(Recorder& recorder, NameId name, Category category, std::int64_t arg, bool has_arg) {
    buffer_ = recorder.begin_range(name, category,
                                   has_arg ? std::optional<std::int64_t>(arg) : std::nullopt);
    if (buffer_ && category == Category::kStep) {
      recorder.on_step_begin(arg);
      flush_on_end_ = &recorder;
    }
  }

  ThreadBuffer* buffer_ = nullptr;
  Recorder* flush_on_end_ = nullptr;
};

// --- inline hot path ---

inline void Recorder::instant(NameId name, Category category, std::optional<std::int64_t> arg) {
  if (!capturing()) return;
  const EventSlot slot{read_ticks(), EventKind::kInstant, static_cast<std::uint8_t>(category),
                       static_cast<std::uint16_t>(arg.has_value()), name,
                       static_cast<std::uint64_t>(arg.value_or(0)), 0};
  push(&slot, 1);
}

inline void Recorder::counter(NameId name, double value) {
  if (!capturing()) return;
  EventSlot slot{read_ticks(), EventKind::kCounter, 0, 0, name, 0, 0};
  std::memcpy(&slot.a, &value, sizeof value);
  push(&slot, 1);
}

inline void Recorder::queue_sample(NameId queue, QueueRole role, std::uint32_t depth,
                                   std::uint32_t capacity, std::int64_t wait_ns) {
  if (!capturing()) return;
  const EventSlot slot{read_ticks(), EventKind::kQueueSample, static_cast<std::uint8_t>(role), 0,
                       queue, depth | (std::uint64_t{capacity} << 32),
                       static_cast<std::uint64_t>(wait_ns)};
  push(&slot, 1);
}

inline void Recorder::gradient_ready(std::uint32_t param_index, std::uint64_t bytes) {
  if (!capturing()) return;
  const EventSlot slot{read_ticks(), EventKind::kGradReady, 0, 0, param_index, bytes,
                       static_cast<std::uint64_t>(current_step())};
  push(&slot, 1);
}

inline void Recorder::gradient_ready_at(std::uint32_t param_index, std::uint64_t bytes,
                                        std::int64_t monotonic_ns) {
  if (!capturing()) return;
  const EventSlot slot{static_cast<Ticks>(monotonic_ns), EventKind::kGradReady, 0,
                       static_cast<std::uint16_t>(TimeBase::kMonotonicNs), param_index, bytes,
                       static_cast<std::uint64_t>(current_step())};
  push(&slot, 1);
}

inline void Recorder::collective(const CollectiveEvent& event) {
  if (!capturing()) return;
  const EventSlot slots[2] = {
      {event.start, EventKind::kCollective, static_cast<std::uint8_t>(event.op),
       static_cast<std::uint16_t>(event.time_base), event.lane, event.end, event.bytes},
      {0, EventKind::kCollectiveTail, 0, static_cast<std::uint16_t>(event.dtype), event.bucket,
       event.first_param | (std::uint64_t{event.last_param} << 32),
       static_cast<std::uint64_t>(current_step())},
  };
  push(slots, 2);
}

}  // namespace parity::profiler
