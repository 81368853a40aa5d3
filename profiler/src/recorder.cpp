#include "parity/profiler/recorder.hpp"

#include <pthread.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <utility>
#include <unordered_map>

#include "event_decoder.hpp"
#include "parity/core/error.hpp"
#include "parity/core/log.hpp"
#include "parity/core/version.hpp"
#include "string_table.hpp"
#include "wal_checkpointer.hpp"

namespace parity::profiler {
namespace {

std::atomic<std::uint64_t> next_recorder_serial{1};

bool is_power_of_two(std::uint32_t value) { return value >= 2 && (value & (value - 1)) == 0; }

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

}  // namespace

// Everything the hot path does not touch: thread registry, cold records, and
// the writer thread with its SQLite connection.
struct Recorder::Impl {
  explicit Impl(RecorderOptions opts)
      : options(std::move(opts)),
        writer(options.path),
        clock(sample_clock_pair()),
        decoder(writer, clock, [this] { return next_track_id++; }, options.rank) {}

  // Cold records, handed over under `cold_mutex`.
  struct ColdRecords {
    std::vector<TrackRow> tracks;
    std::vector<std::pair<std::string, std::string>> meta;
    std::vector<ParameterRow> parameters;
    std::vector<GpuActivityRow> gpu_activities;
    std::vector<ApiCallRow> api_calls;
  };

  void writer_main();
  void drain(std::optional<Ticks> close_at);
  void commit();
  void write_cold(ColdRecords& cold);
  std::uint64_t dropped_records() {
    std::uint64_t dropped = writer_dropped.load();
    std::lock_guard lock(registry_mutex);
    for (const auto& buffer : buffers) dropped += buffer->dropped();
    return dropped;
  }

  RecorderOptions options;
  TraceWriter writer;
  TickConverter clock;
  std::atomic<TrackId> next_track_id{1};
  EventDecoder decoder;

  std::mutex registry_mutex;
  std::vector<std::unique_ptr<ThreadBuffer>> buffers;
  std::unordered_map<std::thread::id, ThreadBuffer*> buffer_of_thread;
  // Low 32 bits of pthread_self() -> track: how CUPTI names a thread.
  std::unordered_map<std::uint32_t, TrackId> track_of_cupti_thread;

  std::mutex cold_mutex;
  ColdRecords cold;
  std::unordered_map<std::int64_t, TrackId> gpu_stream_tracks;  // device << 32 | stream

  // Writer thread control, guarded by wake_mutex.
  std::mutex wake_mutex;
  std::condition_variable wake;
  std::condition_variable synced;
  bool exit_requested = false;
  bool flush_requested = false;
  std::uint64_t sync_requested = 0, sync_done = 0;
  std::optional<Ticks> close_requested;

  // Writer-thread state.
  std::size_t strings_written = 0;
  std::vector<std::string> new_strings;
  std::chrono::steady_clock::time_point last_commit = std::chrono::steady_clock::now();
  bool writer_failed = false;
  std::atomic<std::uint64_t> rows_written{0}, commits{0}, writer_dropped{0};
  std::atomic<std::int64_t> busy_ns{0};
  std::atomic<bool> failed{false};

  std::unique_ptr<WalCheckpointer> checkpointer;
  std::thread thread;
};

void Recorder::Impl::write_cold(ColdRecords& records) {
  for (const auto& row : records.tracks) writer.add(row);
  for (const auto& [key, value] : records.meta) writer.set_meta(key, value);
  for (const auto& row : records.parameters) writer.add(row);
  for (const auto& row : records.gpu_activities) writer.add(row);
  for (const auto& row : records.api_calls) writer.add(row);
  rows_written += records.gpu_activities.size() + records.api_calls.size();
}

void Recorder::Impl::drain(std::optional<Ticks> close_at) {
  // Order matters: take the ring heads first, then the clock pair and the
  // strings, so that every drained slot is older than both.
  std::vector<std::pair<ThreadBuffer*, std::uint64_t>> heads;
  {
    std::lock_guard lock(registry_mutex);
    heads.reserve(buffers.size());
    for (const auto& buffer : buffers) heads.emplace_back(buffer.get(), buffer->published());
  }
  clock.advance(sample_clock_pair());
  ColdRecords records;
  {
    std::lock_guard lock(cold_mutex);
    std::swap(records, cold);
  }
  new_strings.clear();
  const std::size_t strings_now = StringTable::instance().copy_from(strings_written, new_strings);

  if (writer_failed) {  // keep the rings moving so that recording never stalls
    for (auto& [buffer, head] : heads) {
      for (std::uint64_t position = buffer->consumed(); position < head; ++position)
        if (buffer->slot(position).kind != EventKind::kCollectiveTail) ++writer_dropped;  // records, not slots
      buffer->release_until(head);
    }
    writer_dropped += records.gpu_activities.size() + records.api_calls.size();
    return;
  }
  try {
    writer.begin();
    for (std::size_t i = 0; i < new_strings.size(); ++i)
      writer.add_string(static_cast<NameId>(strings_written + i), new_strings[i]);
    strings_written = strings_now;
    write_cold(records);
    const std::uint64_t before = decoder.rows_written();
    for (auto& [buffer, head] : heads) decoder.decode(*buffer, head);
    if (close_at) decoder.close_open_ranges(*close_at);
    rows_written += decoder.rows_written() - before;
  } catch (const std::exception& error) {
    writer_failed = true;
    failed = true;
    log::error(std::string("trace writer failed, recording continues without it: ") +
               error.what());
  }
}

void Recorder::Impl::commit() {
  const std::uint64_t dropped = dropped_records();
  if (writer_failed) return;
  try {
    writer.begin();
    writer.set_meta("dropped_records", std::to_string(dropped));
    writer.commit();
    ++commits;
  } catch (const std::exception& error) {
    writer_failed = true;
    failed = true;
    log::error(std::string("trace writer failed to commit: ") + error.what());
  }
  last_commit = std::chrono::steady_clock::now();
}

void Recorder::Impl::writer_main() {
  std::unique_lock lock(wake_mutex);
  while (true) {
    wake.wait_for(lock, options.drain_interval, [this] {
      return exit_requested || flush_requested || sync_requested != sync_done;
    });
    const bool exiting = exit_requested;
    const std::uint64_t sync_target = sync_requested;
    const bool commit_now = exiting || flush_requested || sync_target != sync_done ||
                            std::chrono::steady_clock::now() - last_commit >= options.flush_interval;
    const std::optional<Ticks> close_at = std::exchange(close_requested, std::nullopt);
    flush_requested = false;
    lock.unlock();

    const auto started = std::chrono::steady_clock::now();
    drain(close_at);
    if (commit_now) commit();
    busy_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::steady_clock::now() - started)
                   .count();

    lock.lock();
    sync_done = sync_target;
    synced.notify_all();
    if (exiting) return;
  }
}

Recorder::Recorder(RecorderOptions options) : serial_(next_recorder_serial++) {
  if (!is_power_of_two(options.slots_per_thread))
    throw Error("slots_per_thread must be a power of two >= 2, got " +
                    std::to_string(options.slots_per_thread),
                options.path.string());
  impl_ = std::make_unique<Impl>(std::move(options));
  Impl& impl = *impl_;
  const RecorderOptions& opts = impl.options;
  TraceWriter& writer = impl.writer;
  writer.begin();
  writer.set_meta("tool_version", kVersion);
  writer.set_meta("command_line", opts.command_line);
  writer.set_meta("config", opts.config);
  writer.set_meta("host", host_name());
  writer.set_meta("pid", std::to_string(getpid()));
  writer.set_meta("rank", std::to_string(opts.rank));
  writer.set_meta("world_size", std::to_string(opts.world_size));
  writer.set_meta("clock", "CLOCK_MONOTONIC");
  writer.set_meta("clock_origin_ns", std::to_string(impl.clock.origin_ns()));
  writer.set_meta("clock_origin_unix_ns",
                  std::to_string(unix_ns_now() - (monotonic_ns() - impl.clock.origin_ns())));
  writer.set_meta("tick_source", std::string(kTickSource));
  writer.set_meta("created_at", utc_now_iso8601());
  writer.set_meta("dropped_records", "0");
  writer.set_meta("complete", "0");
  writer.commit();
  writer.set_auto_checkpoint(false);
  impl.checkpointer = std::make_unique<WalCheckpointer>(opts.path, std::chrono::milliseconds(200));
  impl.thread = std::thread([&impl] { impl.writer_main(); });
  if (opts.capture_at_start) start();
}

Recorder::~Recorder() {
  stop();
  {
    std::lock_guard lock(impl_->wake_mutex);
    impl_->exit_requested = true;
  }
  impl_->wake.notify_one();
  impl_->thread.join();
  impl_->checkpointer.reset();
  if (impl_->writer_failed) return;
  try {
    impl_->writer.begin();
    impl_->writer.set_meta("complete", "1");
    impl_->writer.finalize();
  } catch (const std::exception& error) {
    log::error(std::string("could not finalize the trace: ") + error.what());
  }
}

void Recorder::start() { capturing_.store(true, std::memory_order_relaxed); }

void Recorder::stop() {
  if (!capturing_.exchange(false)) return;
  {
    std::lock_guard lock(impl_->wake_mutex);
    impl_->close_requested = read_ticks();
  }
  flush();
}

ThreadBuffer* Recorder::register_thread() {
  Impl& impl = *impl_;
  ThreadBuffer* buffer = nullptr;
  {
    std::lock_guard lock(impl.registry_mutex);
    auto& registered = impl.buffer_of_thread[std::this_thread::get_id()];
    if (!registered) {
      auto created =
          std::make_unique<ThreadBuffer>(impl.options.slots_per_thread, impl.next_track_id++);
      // Queue the track row before the ring becomes visible to the writer, so
      // that no row ever references a track that is not written yet.
      const auto tid = static_cast<std::int64_t>(gettid());
      {
        std::lock_guard cold_lock(impl.cold_mutex);
        impl.cold.tracks.push_back(TrackRow{created->track(), TrackKind::kHostThread,
                                            intern("thread " + std::to_string(tid)),
                                            static_cast<std::int64_t>(getpid()), tid, {}, {}});
      }
      impl.track_of_cupti_thread[static_cast<std::uint32_t>(pthread_self())] = created->track();
      impl.buffers.push_back(std::move(created));
      registered = impl.buffers.back().get();
    }
    buffer = registered;
  }
  detail::tls_cache = {serial_, buffer};
  return buffer;
}

void Recorder::name_thread(std::string_view name) {
  ThreadBuffer* buffer = thread_buffer();
  const auto tid = static_cast<std::int64_t>(gettid());
  std::lock_guard lock(impl_->cold_mutex);
  // The track row is written again with the new name (INSERT OR REPLACE).
  impl_->cold.tracks.push_back(TrackRow{buffer->track(), TrackKind::kHostThread, intern(name),
                                        static_cast<std::int64_t>(getpid()), tid, {}, {}});
}

void Recorder::set_meta(std::string_view key, std::string_view value) {
  std::lock_guard lock(impl_->cold_mutex);
  impl_->cold.meta.emplace_back(key, value);
}

void Recorder::add_parameter(ParameterRow row) {
  std::lock_guard lock(impl_->cold_mutex);
  impl_->cold.parameters.push_back(std::move(row));
}

TrackId Recorder::gpu_stream_track(std::int64_t device, std::int64_t stream) {
  std::lock_guard lock(impl_->cold_mutex);
  const auto stream_key = static_cast<std::int64_t>(static_cast<std::uint32_t>(stream));
  auto [it, inserted] = impl_->gpu_stream_tracks.emplace((device << 32) | stream_key, 0);
  if (inserted) {
    it->second = impl_->next_track_id++;
    const std::string name = "GPU " + std::to_string(device) +
                             (stream < 0 ? " (all streams)" : " stream " + std::to_string(stream));
    impl_->cold.tracks.push_back(
        TrackRow{it->second, TrackKind::kGpuStream, intern(name), {}, {}, device, stream});
  }
  return it->second;
}

TrackId Recorder::cuda_api_thread_track(std::uint32_t cupti_thread_id) {
  std::lock_guard lock(impl_->registry_mutex);
  auto [it, inserted] = impl_->track_of_cupti_thread.emplace(cupti_thread_id, 0);
  if (inserted) {
    it->second = impl_->next_track_id++;
    char name[48];
    std::snprintf(name, sizeof name, "CUDA thread 0x%08x", cupti_thread_id);
    std::lock_guard cold_lock(impl_->cold_mutex);
    impl_->cold.tracks.push_back(TrackRow{it->second, TrackKind::kHostThread, intern(name),
                                          static_cast<std::int64_t>(getpid()), {}, {}, {}});
  }
  return it->second;
}

void Recorder::add_gpu_activities(std::vector<GpuActivityRow> rows) {
  std::lock_guard lock(impl_->cold_mutex);
  auto& pending = impl_->cold.gpu_activities;
  if (pending.empty()) {
    pending = std::move(rows);
  } else {
    pending.insert(pending.end(), rows.begin(), rows.end());
  }
}

void Recorder::add_api_calls(std::vector<ApiCallRow> rows) {
  std::lock_guard lock(impl_->cold_mutex);
  auto& pending = impl_->cold.api_calls;
  pending.insert(pending.end(), rows.begin(), rows.end());
}

std::int64_t Recorder::now_ns() const { return monotonic_ns() - impl_->clock.origin_ns(); }

std::int64_t Recorder::trace_ns_from_monotonic(std::int64_t monotonic) const {
  return impl_->clock.monotonic_to_trace_ns(monotonic);
}

void Recorder::flush() {
  std::unique_lock lock(impl_->wake_mutex);
  const std::uint64_t ticket = ++impl_->sync_requested;
  impl_->wake.notify_one();
  impl_->synced.wait(lock, [&] { return impl_->sync_done >= ticket; });
}

void Recorder::request_flush() {
  {
    std::lock_guard lock(impl_->wake_mutex);
    impl_->flush_requested = true;
  }
  impl_->wake.notify_one();
}

RecorderStats Recorder::stats() const {
  RecorderStats stats;
  stats.rows_written = impl_->rows_written.load();
  stats.commits = impl_->commits.load();
  stats.writer_busy_ns = impl_->busy_ns.load();
  stats.writer_failed = impl_->failed.load();
  stats.dropped = impl_->dropped_records();
  return stats;
}

const std::filesystem::path& Recorder::path() const { return impl_->options.path; }

}  // namespace parity::profiler
