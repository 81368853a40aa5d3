#include "trace_assembly.hpp"

#include <algorithm>

#include "parity/profiler/trace_writer.hpp"

namespace parity::importers::trace {
namespace {

constexpr std::size_t kRowsPerTransaction = std::size_t(1) << 16;

// Commits every kRowsPerTransaction rows, so no transaction grows without end.
class BatchedWriter {
 public:
  explicit BatchedWriter(std::unique_ptr<profiler::TraceWriter> writer)
      : writer_(std::move(writer)) {
    writer_->begin();
  }
  template <class Row>
  void add(const Row& row) {
    writer_->add(row);
    if (++rows_ % kRowsPerTransaction == 0) {
      writer_->commit();
      writer_->begin();
    }
  }
  profiler::TraceWriter& writer() { return *writer_; }
  void finish() {
    writer_->commit();
    writer_->finalize();
  }

 private:
  std::unique_ptr<profiler::TraceWriter> writer_;
  std::size_t rows_ = 0;
};

}  // namespace

TraceAssembly::TraceAssembly() { name(""); }

TraceAssembly::~TraceAssembly() {
  if (!stream_ || written_) return;
  stream_.reset();  // stops its thread and closes the file
  std::error_code ignored;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    std::filesystem::remove(stream_path_->string() + suffix, ignored);
}

RowStream* TraceAssembly::stream() {
  if (!stream_path_) return nullptr;
  if (!stream_) stream_ = std::make_unique<RowStream>(*stream_path_, earliest_.value_or(0));
  return stream_.get();
}

NameId TraceAssembly::name(std::string_view text) {
  if (const auto it = string_ids_.find(text); it != string_ids_.end()) return it->second;
  const auto id = static_cast<NameId>(strings_.size());
  string_ids_.emplace(std::string(text), id);
  strings_.emplace_back(text);
  return id;
}

TrackId TraceAssembly::track(const std::string& key, profiler::TrackKind kind) {
  const auto [it, added] = track_ids_.try_emplace(key, static_cast<TrackId>(tracks_.size() + 1));
  if (added) {
    profiler::TrackRow row;
    row.id = it->second;
    row.kind = kind;
    row.name = name(key);
    tracks_.push_back(row);
    described_.push_back(false);
  }
  return it->second;
}

void TraceAssembly::describe_track(TrackId track, std::string_view label,
                                   std::optional<std::int64_t> pid, std::optional<std::int64_t> tid,
                                   std::optional<std::int64_t> device,
                                   std::optional<std::int64_t> stream) {
  profiler::TrackRow& row = tracks_.at(track - 1);
  row.pid = pid;
  row.tid = tid;
  row.device = device;
  row.stream = stream;
  row.name = name(label);
  described_.at(track - 1) = true;
}

bool TraceAssembly::has_label(TrackId track) const { return described_.at(track - 1); }

void TraceAssembly::saw(std::int64_t ts_ns) {
  if (!earliest_ || ts_ns < *earliest_) earliest_ = ts_ns;
}

void TraceAssembly::add_range(TrackId track, std::int64_t start_ns, std::int64_t dur_ns,
                              NameId name, Category category, std::optional<std::int64_t> arg) {
  saw(start_ns);
  ranges_.push_back(
      {start_ns, dur_ns, arg, track, name, category, static_cast<std::uint32_t>(ranges_.size())});
}

void TraceAssembly::add_instant(TrackId track, std::int64_t ts_ns, NameId name, Category category) {
  saw(ts_ns);
  instants_.push_back({track, ts_ns, name, category, std::nullopt});
}

void TraceAssembly::add_counter(TrackId track, std::int64_t ts_ns, double value) {
  saw(ts_ns);
  counters_.push_back({track, ts_ns, value});
}

void TraceAssembly::add_gpu_activity(profiler::GpuActivityRow row) {
  saw(row.start_ns);
  row.id = ++activity_count_;
  if (RowStream* streamed = stream())
    streamed->add(row);
  else
    activities_.push_back(row);
}

void TraceAssembly::add_collective(profiler::CollectiveRow row) {
  saw(row.start_ns);
  collectives_.push_back(std::move(row));
}

void TraceAssembly::add_queue_sample(const profiler::QueueSampleRow& row) {
  saw(row.ts_ns);
  queue_samples_.push_back(row);
}

void TraceAssembly::add_api_call(profiler::ApiCallRow row) {
  saw(row.start_ns);
  row.id = ++api_call_count_;
  if (RowStream* streamed = stream())
    streamed->add(row);
  else
    api_calls_.push_back(row);
}

// Ranges in begin order (outer before inner at equal starts), each with the
// innermost range of its track still open where it starts as parent: ranges
// on one thread come from its call stack, so one that starts inside another
// is its callee even where rounding (the legacy profiler's whole
// microseconds) lets it end a little after its caller. For what follows, a
// callee ends no later than its caller.
std::vector<profiler::RangeRow> TraceAssembly::nested_ranges(std::int64_t origin) const {
  std::vector<const Range*> order;
  order.reserve(ranges_.size());
  for (const Range& range : ranges_) order.push_back(&range);
  std::sort(order.begin(), order.end(), [](const Range* a, const Range* b) {
    if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns;
    if (a->dur_ns != b->dur_ns) return a->dur_ns > b->dur_ns;
    return a->sequence < b->sequence;
  });
  std::vector<profiler::RangeRow> rows(order.size());
  std::vector<std::int64_t> open_until(order.size());  // the end, clamped to the caller's
  std::map<TrackId, std::vector<std::size_t>> open;    // per track: indices into rows
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Range& range = *order[i];
    std::vector<std::size_t>& stack = open[range.track];
    while (!stack.empty() && open_until[stack.back()] <= range.start_ns) stack.pop_back();
    open_until[i] = range.start_ns + range.dur_ns;
    if (!stack.empty()) open_until[i] = std::min(open_until[i], open_until[stack.back()]);
    profiler::RangeRow& row = rows[i];
    row.track = range.track;
    row.start_ns = range.start_ns - origin;
    row.id = static_cast<std::int64_t>(i + 1);
    row.dur_ns = range.dur_ns;
    row.name = range.name;
    row.category = range.category;
    row.depth = static_cast<std::uint32_t>(stack.size());
    if (!stack.empty()) row.parent_id = rows[stack.back()].id;
    row.arg = range.arg;
    stack.push_back(i);
  }
  return rows;
}

void TraceAssembly::write(const std::filesystem::path& out) {
  const std::int64_t origin = earliest_.value_or(0);
  std::unique_ptr<profiler::TraceWriter> writer;
  if (stream_) {
    writer = stream_->finish();
    // The streamed rows' times are from the stream's origin, later than an
    // earlier event that came after it began.
    writer->shift_times(stream_->origin_ns() - origin);
  } else {
    writer = std::make_unique<profiler::TraceWriter>(out, profiler::TraceWriter::Journal::kScratch);
  }
  BatchedWriter batch(std::move(writer));
  for (const auto& [key, value] : meta_) batch.writer().set_meta(key, value);
  for (std::size_t id = 0; id < strings_.size(); ++id)
    batch.writer().add_string(static_cast<NameId>(id), strings_[id]);
  for (const profiler::TrackRow& track : tracks_) batch.add(track);

  std::map<std::int64_t, profiler::StepRow> steps;
  for (const profiler::RangeRow& range : nested_ranges(origin)) {
    batch.add(range);
    if (range.category == Category::kStep && range.arg)
      steps.try_emplace(*range.arg, profiler::StepRow{*range.arg, range.track, range.start_ns,
                                                      range.start_ns + range.dur_ns});
  }
  for (const auto& [number, step] : steps) batch.add(step);
  std::map<std::pair<TrackId, std::int64_t>, std::int64_t> calls_in_step;
  for (profiler::CollectiveRow row : collectives_) {
    row.start_ns -= origin;
    for (const auto& [number, step] : steps)
      if (step.start_ns <= row.start_ns && row.start_ns < step.end_ns) row.step = number;
    row.bucket = calls_in_step[{row.track, row.step}]++;
    batch.add(row);
  }
  // Each row with its time (the member `time`) moved to the trace's origin.
  const auto add_all = [&](const auto& rows, auto time) {
    for (auto row : rows) {
      row.*time -= origin;
      batch.add(row);
    }
  };
  add_all(instants_, &profiler::InstantRow::ts_ns);
  add_all(counters_, &profiler::CounterRow::ts_ns);
  add_all(activities_, &profiler::GpuActivityRow::start_ns);
  add_all(api_calls_, &profiler::ApiCallRow::start_ns);
  add_all(queue_samples_, &profiler::QueueSampleRow::ts_ns);
  batch.writer().set_meta("complete", "1");
  batch.finish();
  written_ = true;
}

}  // namespace parity::importers::trace
