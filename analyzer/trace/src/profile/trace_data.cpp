#include "parity/analyzer/profile/trace_data.hpp"

#include <algorithm>
#include <charconv>

#include "parity/analyzer/parallel_for.hpp"
#include "parity/core/error.hpp"
#include "parity/profiler/allreduce_split.hpp"
#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/profiler/trace_reader.hpp"

namespace parity::analyzer {
namespace {

namespace schema = profiler::schema;
using profiler::ApiCallRow;
using profiler::Category;
using profiler::CollectiveRow;
using profiler::CounterRow;
using profiler::NameId;
using profiler::QueueSampleRow;
using profiler::RangeRow;
using profiler::StepRow;
using profiler::StoredGpuActivityRow;
using profiler::TrackId;
using profiler::sql::Database;

// The collectives of the training, without parity-train's calibration sweep.
constexpr auto kTrainingCollectives = schema::projection<CollectiveRow>(
    "collective",
    "collective c LEFT JOIN track t ON t.id = c.track_id LEFT JOIN string s ON s.id = t.name_id",
    schema::column<CollectiveRow>("c.track_id", &CollectiveRow::track),
    schema::column<CollectiveRow>("c.start_ns", &CollectiveRow::start_ns),
    schema::column<CollectiveRow>("c.dur_ns", &CollectiveRow::dur_ns),
    schema::column<CollectiveRow>("c.op", &CollectiveRow::op),
    schema::column<CollectiveRow>("c.bytes", &CollectiveRow::bytes),
    schema::column<CollectiveRow>("c.bucket", &CollectiveRow::bucket),
    schema::column<CollectiveRow>("c.step", &CollectiveRow::step));

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
  std::vector<std::size_t> open;  // indices into trace.ranges
  TrackId current_track = 0;
  schema::for_each<schema::kTable<RangeRow>, &RangeRow::track, &RangeRow::start_ns,
                   &RangeRow::dur_ns, &RangeRow::name, &RangeRow::category, &RangeRow::depth,
                   &RangeRow::arg>(db, "ORDER BY track_id, start_ns, id", [&](const RangeRow& row) {
    TraceRange range;
    range.track = row.track;
    range.start_ns = row.start_ns;
    if (row.dur_ns < 0 || row.depth > 255)
      throw Error("corrupt range row (duration " + std::to_string(row.dur_ns) + ", depth " +
                      std::to_string(row.depth) + ")",
                  trace.path + ": range on track " + std::to_string(range.track) + " at " +
                      std::to_string(range.start_ns) + " ns");
    range.end_ns = range.start_ns + row.dur_ns;
    range.name = row.name;
    range.category = row.category;
    range.depth = static_cast<std::uint8_t>(row.depth);
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
    if (range.category == Category::kStep && row.arg) range.step = *row.arg;
    if (range.category == Category::kPhase) range.phase = range.name;
    if (range.category == Category::kLayer) range.layer = range.name;
    open.push_back(trace.ranges.size());
    trace.ranges.push_back(range);
  });
}

void load_steps(Database& db, TraceData& trace) {
  schema::for_each<schema::kTable<StepRow>>(db, "ORDER BY step", [&](const StepRow& row) {
    if (row.end_ns < row.start_ns)
      throw Error("corrupt step row: it ends before it starts",
                  trace.path + ": step " + std::to_string(row.step));
    trace.steps.push_back({row.step, row.track, row.start_ns, row.end_ns});
  });
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
  using Row = QueueSampleRow;
  schema::for_each<schema::kTable<Row>, &Row::track, &Row::ts_ns, &Row::depth, &Row::capacity,
                   &Row::role, &Row::wait_ns>(db, "ORDER BY track_id, ts_ns", [&](const Row& row) {
    TraceQueueSample sample;
    sample.track = row.track;
    sample.ts_ns = row.ts_ns;
    sample.depth = row.depth;
    sample.capacity = row.capacity;
    sample.role = row.role;
    sample.wait_ns = std::max<std::int64_t>(0, row.wait_ns);
    trace.queue_samples.push_back(sample);
  });
}

// The training's collectives: parity-train's calibration sweep before the
// first step is for the AllReduce tuner, not part of any step.
void load_collectives(Database& db, TraceData& trace) {
  schema::for_each<kTrainingCollectives>(
      db,
      "WHERE IFNULL(s.text, '') <> '" + std::string(profiler::kCalibrationLane) +
          "' ORDER BY c.start_ns",
      [&](const CollectiveRow& row) {
        TraceCollective collective;
        collective.track = row.track;
        collective.start_ns = row.start_ns;
        collective.end_ns = row.start_ns + std::max<std::int64_t>(0, row.dur_ns);
        collective.op = row.op;
        collective.bytes = row.bytes;
        collective.bucket = row.bucket;
        collective.step = row.step;
        trace.collectives.push_back(collective);
      });
}

void load_gpu_activities(Database& db, TraceData& trace) {
  using Row = StoredGpuActivityRow;
  schema::for_each<schema::kTable<Row>, &Row::track, &Row::start_ns, &Row::dur_ns, &Row::kind,
                   &Row::name, &Row::correlation_id>(
      db, "ORDER BY track_id, start_ns, id", [&](const Row& row) {
        TraceGpuActivity activity;
        activity.track = row.track;
        activity.start_ns = row.start_ns;
        activity.end_ns = row.start_ns + std::max<std::int64_t>(0, row.dur_ns);
        activity.kind = row.kind;
        activity.name = row.name;
        activity.correlation_id = row.correlation_id.value_or(-1);
        trace.gpu_activities.push_back(activity);
      });
}

void load_api_calls(Database& db, TraceData& trace) {
  std::vector<TraceApiCall> calls;
  schema::for_each<schema::kTable<ApiCallRow>, &ApiCallRow::correlation_id, &ApiCallRow::start_ns,
                   &ApiCallRow::dur_ns>(
      db, "WHERE correlation_id IS NOT NULL ORDER BY correlation_id", [&](const ApiCallRow& row) {
        calls.push_back({*row.correlation_id, row.start_ns,
                         row.start_ns + std::max<std::int64_t>(0, row.dur_ns)});
      });
  trace.launches = profiler::LaunchIndex<TraceApiCall>(std::move(calls));
}

void load_counters(Database& db, TraceData& trace) {
  TrackId current = 0;
  std::vector<CounterPoint>* series = nullptr;
  schema::for_each<schema::kTable<CounterRow>>(
      db, "ORDER BY track_id, ts_ns", [&](const CounterRow& row) {
        if (!series || row.track != current) {
          current = row.track;
          series = &trace.counters[trace.track_label(row.track)];
        }
        series->push_back({row.ts_ns, row.value});
      });
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
  trace.launches = std::move(parts[2].launches);
  trace.steps = std::move(parts[3].steps);
  trace.queue_samples = std::move(parts[4].queue_samples);
  trace.collectives = std::move(parts[5].collectives);
  trace.counters = std::move(parts[6].counters);
  if (trace.steps.empty()) steps_from_ranges(trace);
  std::size_t counter_points = 0;
  for (const auto& [name, points] : trace.counters) counter_points += points.size();
  trace.events = trace.ranges.size() + trace.gpu_activities.size() + trace.launches.size() +
                 trace.steps.size() + trace.queue_samples.size() + trace.collectives.size() +
                 counter_points;
  return trace;
}

}  // namespace parity::analyzer
