#include "parity/analyzer/profile/trace_data.hpp"

#include <algorithm>
#include <charconv>

#include "parity/analyzer/parallel_for.hpp"
#include "parity/core/allreduce_split.hpp"
#include "parity/core/error.hpp"
#include "parity/profiler/trace_reader.hpp"

namespace parity::analyzer {
namespace {

using profiler::Category;
using profiler::NameId;
using profiler::TrackId;
using profiler::sql::Database;
using profiler::sql::Statement;

std::int64_t meta_int(const std::map<std::string, std::string>& meta, const std::string& key,
                      std::int64_t fallback, const std::string& path) {
  const auto it = meta.find(key);
  if (it == meta.end() || it->second.empty()) return fallback;
  std::int64_t value = 0;
  const std::string& text = it->second;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0)
    throw Error("meta." + key + " is not a non-negative integer: '" + text + "'", path);
  return value;
}

// Loads ranges in their clustered order and gives each its context. Ranges on
// a track nest properly and arrive parent first, so the open ancestors of a
// range are exactly the first `depth` entries of the track's stack.
void load_ranges(Database& db, TraceData& trace) {
  Statement rows(db,
                 "SELECT track_id, start_ns, dur_ns, name_id, category, depth, arg FROM range "
                 "ORDER BY track_id, start_ns, id");
  std::vector<std::size_t> open;  // indices into trace.ranges
  TrackId current_track = 0;
  while (rows.step()) {
    TraceRange range;
    range.track = static_cast<TrackId>(rows.column_int(0));
    range.start_ns = rows.column_int(1);
    const std::int64_t dur = rows.column_int(2);
    const std::int64_t category = rows.column_int(4);
    const std::int64_t depth = rows.column_int(5);
    if (dur < 0 || category < 1 || category > 6 || depth < 0 || depth > 255)
      throw Error("corrupt range row (duration " + std::to_string(dur) + ", category " +
                      std::to_string(category) + ", depth " + std::to_string(depth) + ")",
                  trace.path + ": range on track " + std::to_string(range.track) + " at " +
                      std::to_string(range.start_ns) + " ns");
    range.end_ns = range.start_ns + dur;
    range.name = static_cast<NameId>(rows.column_int(3));
    range.category = static_cast<Category>(category);
    range.depth = static_cast<std::uint8_t>(depth);
    if (range.track != current_track) {
      open.clear();
      current_track = range.track;
    }
    // A depth beyond the open stack means a lost parent (a range cut by a
    // crash); the range then inherits from the deepest one still open.
    if (open.size() > range.depth) open.resize(range.depth);
    if (!open.empty()) {
      const TraceRange& parent = trace.ranges[open.back()];
      range.step = parent.step;
      range.phase = parent.phase;
      range.layer = parent.layer;
    }
    if (range.category == Category::kStep && !rows.column_is_null(6))
      range.step = rows.column_int(6);
    if (range.category == Category::kPhase) range.phase = range.name;
    if (range.category == Category::kLayer) range.layer = range.name;
    open.push_back(trace.ranges.size());
    trace.ranges.push_back(range);
  }
}

void load_steps(Database& db, TraceData& trace) {
  Statement rows(db, "SELECT step, track_id, start_ns, end_ns FROM step ORDER BY step");
  while (rows.step()) {
    TraceStep step{rows.column_int(0), static_cast<TrackId>(rows.column_int(1)), rows.column_int(2),
                   rows.column_int(3)};
    if (step.end_ns < step.start_ns)
      throw Error("corrupt step row: it ends before it starts",
                  trace.path + ": step " + std::to_string(step.step));
    trace.steps.push_back(step);
  }
}

// Traces whose writer kept no step table (an importer, a crashed run) still
// have their step ranges.
void steps_from_ranges(TraceData& trace) {
  for (const TraceRange& range : trace.ranges)
    if (range.category == Category::kStep && range.step != kNoStep)
      trace.steps.push_back({range.step, range.track, range.start_ns, range.end_ns});
  std::sort(trace.steps.begin(), trace.steps.end(),
            [](const TraceStep& a, const TraceStep& b) { return a.step < b.step; });
}

void load_queue_samples(Database& db, TraceData& trace) {
  Statement rows(db,
                 "SELECT track_id, ts_ns, depth, capacity, role, wait_ns FROM queue_sample "
                 "ORDER BY track_id, ts_ns");
  while (rows.step()) {
    TraceQueueSample sample;
    sample.track = static_cast<TrackId>(rows.column_int(0));
    sample.ts_ns = rows.column_int(1);
    sample.depth = static_cast<std::uint32_t>(std::max<std::int64_t>(0, rows.column_int(2)));
    sample.capacity = static_cast<std::uint32_t>(std::max<std::int64_t>(0, rows.column_int(3)));
    const std::int64_t role = rows.column_int(4);
    if (role != 1 && role != 2)
      throw Error("corrupt queue sample: role " + std::to_string(role) + " is neither 1 nor 2",
                  trace.path + ": queue_sample at " + std::to_string(sample.ts_ns) + " ns");
    sample.role = static_cast<profiler::QueueRole>(role);
    sample.wait_ns = std::max<std::int64_t>(0, rows.column_int(5));
    trace.queue_samples.push_back(sample);
  }
}

// The training's collectives: parity-train's calibration sweep before the
// first step is for the AllReduce tuner, not part of any step.
void load_collectives(Database& db, TraceData& trace) {
  Statement rows(db,
                 "SELECT c.track_id, c.start_ns, c.dur_ns, c.op, c.bytes, c.bucket, c.step "
                 "FROM collective c LEFT JOIN track t ON t.id = c.track_id "
                 "LEFT JOIN string s ON s.id = t.name_id WHERE IFNULL(s.text, '') <> '" +
                     std::string(kCalibrationLane) + "' ORDER BY c.start_ns");
  while (rows.step()) {
    TraceCollective collective;
    collective.track = static_cast<TrackId>(rows.column_int(0));
    collective.start_ns = rows.column_int(1);
    collective.end_ns = collective.start_ns + std::max<std::int64_t>(0, rows.column_int(2));
    const std::int64_t op = rows.column_int(3);
    if (op < 1 || op > 9)
      throw Error("corrupt collective: op " + std::to_string(op) + " is not a known operation",
                  trace.path + ": collective at " + std::to_string(collective.start_ns) + " ns");
    collective.op = static_cast<profiler::CollectiveOp>(op);
    collective.bytes = rows.column_int(4);
    collective.bucket = rows.column_int(5);
    collective.step = rows.column_int(6);
    trace.collectives.push_back(collective);
  }
}

void load_gpu_activities(Database& db, TraceData& trace) {
  Statement rows(db,
                 "SELECT track_id, start_ns, dur_ns, kind, name_id, correlation_id FROM "
                 "gpu_activity ORDER BY track_id, start_ns, id");
  while (rows.step()) {
    TraceGpuActivity activity;
    activity.track = static_cast<TrackId>(rows.column_int(0));
    activity.start_ns = rows.column_int(1);
    activity.end_ns = activity.start_ns + std::max<std::int64_t>(0, rows.column_int(2));
    const std::int64_t kind = rows.column_int(3);
    if (kind < 1 || kind > 4)
      throw Error("corrupt GPU activity: kind " + std::to_string(kind) + " is not 1-4",
                  trace.path + ": gpu_activity at " + std::to_string(activity.start_ns) + " ns");
    activity.kind = static_cast<profiler::GpuActivityKind>(kind);
    activity.name = static_cast<NameId>(rows.column_int(4));
    activity.correlation_id = rows.column_is_null(5) ? -1 : rows.column_int(5);
    trace.gpu_activities.push_back(activity);
  }
}

void load_api_calls(Database& db, TraceData& trace) {
  Statement rows(db,
                 "SELECT correlation_id, start_ns, dur_ns FROM api_call "
                 "WHERE correlation_id IS NOT NULL ORDER BY correlation_id");
  while (rows.step()) {
    const std::int64_t start = rows.column_int(1);
    trace.api_calls.push_back(
        {rows.column_int(0), start, start + std::max<std::int64_t>(0, rows.column_int(2))});
  }
}

void load_counters(Database& db, TraceData& trace) {
  Statement rows(db, "SELECT track_id, ts_ns, value FROM counter ORDER BY track_id, ts_ns");
  TrackId current = 0;
  std::vector<CounterPoint>* series = nullptr;
  while (rows.step()) {
    const auto track = static_cast<TrackId>(rows.column_int(0));
    if (!series || track != current) {
      current = track;
      series = &trace.counters[trace.track_label(track)];
    }
    series->push_back({rows.column_int(1), rows.column_double(2)});
  }
}

}  // namespace

const std::string& TraceData::name(NameId id) const {
  static const std::string unknown = "?";
  return id < strings.size() ? strings[id] : unknown;
}

const profiler::TrackRow* TraceData::track(TrackId id) const {
  const auto it =
      std::lower_bound(tracks.begin(), tracks.end(), id,
                       [](const profiler::TrackRow& row, TrackId t) { return row.id < t; });
  return it != tracks.end() && it->id == id ? &*it : nullptr;
}

std::string TraceData::track_label(TrackId id) const {
  const profiler::TrackRow* row = track(id);
  if (!row) return "track " + std::to_string(id);
  return analyzer::track_label(*row, name(row->name));
}

std::string track_label(const profiler::TrackRow& row, const std::string& name) {
  if (!name.empty()) return name;
  if (row.kind == profiler::TrackKind::kGpuStream)
    return "GPU " + std::to_string(row.device.value_or(0)) + " stream " +
           std::to_string(row.stream.value_or(0));
  if (row.kind == profiler::TrackKind::kGpuDevice)
    return "GPU " + std::to_string(row.device.value_or(0));
  return "track " + std::to_string(row.id);
}

TraceData load_trace(const std::filesystem::path& path,
                     const std::function<void(double)>& progress) {
  TraceData trace;
  trace.path = path.string();
  {
    profiler::TraceReader reader(path);  // checks the file is a trace of this schema
    trace.meta = reader.meta();
    trace.strings = reader.strings();
    trace.tracks = reader.tracks();
  }
  std::sort(trace.tracks.begin(), trace.tracks.end(),
            [](const profiler::TrackRow& a, const profiler::TrackRow& b) { return a.id < b.id; });
  trace.rank = meta_int(trace.meta, "rank", 0, trace.path);
  trace.world_size = std::max<std::int64_t>(1, meta_int(trace.meta, "world_size", 1, trace.path));
  trace.complete = trace.meta.count("complete") && trace.meta.at("complete") == "1";
  trace.dropped_records =
      static_cast<std::uint64_t>(meta_int(trace.meta, "dropped_records", 0, trace.path));

  // Each table is read on its own connection, so the large ones load in parallel.
  using Loader = void (*)(Database&, TraceData&);
  const Loader loaders[] = {load_ranges,        load_gpu_activities, load_api_calls, load_steps,
                            load_queue_samples, load_collectives,    load_counters};
  constexpr std::size_t kTables = std::size(loaders);
  std::vector<TraceData> parts(kTables);
  for (TraceData& part : parts) {
    part.path = trace.path;
    part.strings = trace.strings;
    part.tracks = trace.tracks;
  }
  ParallelOptions options;
  options.threads = 2;
  options.progress = [&](std::size_t done, std::size_t total) {
    if (progress) progress(static_cast<double>(done) / static_cast<double>(total));
  };
  parallel_for(kTables, options, [&](std::size_t table) {
    Database db(path, Database::Mode::kReadOnly);
    loaders[table](db, parts[table]);
  });
  trace.ranges = std::move(parts[0].ranges);
  trace.gpu_activities = std::move(parts[1].gpu_activities);
  trace.api_calls = std::move(parts[2].api_calls);
  trace.steps = std::move(parts[3].steps);
  trace.queue_samples = std::move(parts[4].queue_samples);
  trace.collectives = std::move(parts[5].collectives);
  trace.counters = std::move(parts[6].counters);
  if (trace.steps.empty()) steps_from_ranges(trace);
  std::size_t counter_points = 0;
  for (const auto& [name, points] : trace.counters) counter_points += points.size();
  trace.events = trace.ranges.size() + trace.gpu_activities.size() + trace.api_calls.size() +
                 trace.steps.size() + trace.queue_samples.size() + trace.collectives.size() +
                 counter_points;
  return trace;
}

}  // namespace parity::analyzer
