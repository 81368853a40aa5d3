#include "parity/gui/timeline/timeline_loader.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <map>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>

#include "parity/analyzer/parallel_for.hpp"
#include "parity/analyzer/profile/trace_data.hpp"
#include "parity/core/error.hpp"
#include "parity/gui/timeline/row_packer.hpp"
#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/profiler/trace_reader.hpp"

namespace parity::gui {
namespace {

using profiler::Category;
using profiler::TrackId;
using profiler::TrackKind;
using profiler::sql::Database;
namespace schema = profiler::schema;

// How often (in rows) a table's reader reports progress and checks for cancel.
constexpr std::int64_t kCheckEvery = 1 << 16;

// Progress of the tables read in parallel. A table's fraction is estimated
// from how far into the trace's time its rows have come, track by track.
class LoadProgress {
 public:
  LoadProgress(TaskControl* control, std::size_t tables, TimeWindow span)
      : control_(control), fractions_(tables), span_(span) {}

  void update(std::size_t table, std::size_t track, std::size_t tracks, std::int64_t time) {
    if (!control_) return;
    control_->check();
    const double within =
        span_.length_ns() > 0
            ? std::clamp(static_cast<double>(time - span_.start_ns) / span_.length_ns(), 0.0, 1.0)
            : 0.0;
    fractions_[table] = (static_cast<double>(track) + within) / std::max<std::size_t>(tracks, 1);
    report();
  }
  void done(std::size_t table) {
    if (!control_) return;
    fractions_[table] = 1.0;
    report();
  }

 private:
  void report() {
    double sum = 0;
    for (const auto& fraction : fractions_) sum += fraction.load();
    const std::lock_guard<std::mutex> lock(mutex_);
    control_->progress(sum / static_cast<double>(fractions_.size()));
  }

  TaskControl* control_;
  std::vector<std::atomic<double>> fractions_;
  TimeWindow span_;
  std::mutex mutex_;
};

// What one table's reader produces: rows and counters by track.
struct TablePart {
  std::map<TrackId, std::vector<EventRow>> rows;
  std::map<TrackId, std::vector<CounterRow>> counters;
  std::vector<StepSpan> steps;
};

struct TableContext {
  LoadProgress& progress;
  std::size_t table;
};

std::uint32_t as_u32(std::int64_t value) {
  return static_cast<std::uint32_t>(std::clamp<std::int64_t>(value, 0, UINT32_MAX));
}

// One event of an interval table as the packers take it: instants have no
// duration; a collective's name is its op number, mapped to an interned name
// after the merge; correlation is 0 where the table has none.
struct Interval {
  TrackId track = 0;
  std::int64_t start_ns = 0, dur_ns = 0;
  std::uint32_t name = 0, correlation = 0;
};

struct StepTableSpan {
  std::optional<std::int64_t> first_ns, last_ns;
};
constexpr auto kStepTableSpan = schema::projection<StepTableSpan>(
    "step", "step", schema::column<StepTableSpan>("min(start_ns)", &StepTableSpan::first_ns),
    schema::column<StepTableSpan>("max(end_ns)", &StepTableSpan::last_ns));

// The rows of an interval table (`rows`, sorted by track then start), made
// Intervals by `interval` and packed per track.
template <class Rows, class ToInterval>
void read_intervals(Rows& rows, const TableContext& context, const std::string& title,
                    EventSource source, bool correlated, std::size_t tracks, TablePart& part,
                    ToInterval interval) {
  typename Rows::Row row{};
  std::map<TrackId, RowPacker> packers;
  std::int64_t count = 0;
  std::size_t tracks_done = 0;
  RowPacker* packer = nullptr;
  TrackId current = 0;
  while (rows.next(row)) {
    const Interval event = interval(std::as_const(row));
    const std::int64_t start = event.start_ns;
    const std::int64_t end = start + std::max<std::int64_t>(0, event.dur_ns);
    if (!packer || event.track != current) {  // rows come track by track
      if (packer) ++tracks_done;
      current = event.track;
      packer = &packers.try_emplace(event.track, title, source, 0, correlated).first->second;
    }
    packer->add(start, end, event.name, event.correlation);
    if (++count % kCheckEvery == 0)
      context.progress.update(context.table, tracks_done, tracks, start);
  }
  for (auto& [track, track_packer] : packers) part.rows[track] = track_packer.take();
}

// API calls and GPU work: the launch and the work it queued share a correlation id.
template <class Row>
void read_correlated(Database& db, const TableContext& context, const std::string& title,
                     EventSource source, std::size_t tracks, TablePart& part) {
  schema::Select<schema::kTable<Row>, &Row::track, &Row::start_ns, &Row::dur_ns, &Row::name,
                 &Row::correlation_id>
      rows(db, "ORDER BY track_id, start_ns, id");
  read_intervals(rows, context, title, source, true, tracks, part, [](const Row& row) {
    return Interval{row.track, row.start_ns, row.dur_ns, row.name,
                    as_u32(row.correlation_id.value_or(0))};
  });
}

// Host ranges by track and depth. A depth's row is titled by its ranges'
// category ("step", "phase", "layer", "op") when they share one.
void read_ranges(Database& db, const TableContext& context, std::size_t tracks, TablePart& part) {
  using profiler::RangeRow;
  schema::Select<schema::kTable<RangeRow>, &RangeRow::track, &RangeRow::start_ns, &RangeRow::dur_ns,
                 &RangeRow::name, &RangeRow::depth, &RangeRow::category>
      rows(db, "ORDER BY track_id, start_ns, id");
  RangeRow range;
  struct DepthGroup {
    RowPacker packer{"", EventSource::kRange, 0, false};
    std::int64_t category = -1;  // -2 once mixed
  };
  std::map<TrackId, std::vector<DepthGroup>> groups;
  std::int64_t count = 0;
  std::size_t tracks_done = 0;
  std::vector<DepthGroup>* track_groups = nullptr;
  TrackId current = 0;
  while (rows.next(range)) {
    const TrackId track = range.track;
    const std::int64_t start = range.start_ns;
    const std::int64_t end = start + std::max<std::int64_t>(0, range.dur_ns);
    const std::size_t depth = std::min<std::uint32_t>(range.depth, 255);
    const auto category = static_cast<std::int64_t>(range.category);
    if (!track_groups || track != current) {  // rows come track by track
      if (track_groups) ++tracks_done;
      current = track;
      track_groups = &groups[track];
    }
    auto& by_depth = *track_groups;
    while (by_depth.size() <= depth)
      by_depth.push_back(
          {RowPacker("", EventSource::kRange, static_cast<std::uint32_t>(by_depth.size()), false),
           -1});
    DepthGroup& group = by_depth[depth];
    if (group.category == -1) group.category = category;
    if (group.category != category) group.category = -2;
    group.packer.add(start, end, range.name);
    if (++count % kCheckEvery == 0)
      context.progress.update(context.table, tracks_done, tracks, start);
  }
  for (auto& [track, by_depth] : groups) {
    auto& out = part.rows[track];
    for (std::size_t depth = 0; depth < by_depth.size(); ++depth) {
      DepthGroup& group = by_depth[depth];
      if (group.packer.empty()) continue;
      group.packer.set_title(
          group.category >= 0  // one category
              ? std::string(profiler::category_name(static_cast<Category>(group.category)))
              : "depth " + std::to_string(depth));
      for (EventRow& row : group.packer.take()) out.push_back(std::move(row));
    }
  }
}

// Collectives get interned names ("allreduce") appended to the string table
// by the caller; here they carry the op number, mapped after the merge.
void read_collectives(Database& db, const TableContext& context, std::size_t tracks,
                      TablePart& part) {
  using profiler::CollectiveRow;
  schema::Select<schema::kTable<CollectiveRow>, &CollectiveRow::track, &CollectiveRow::start_ns,
                 &CollectiveRow::dur_ns, &CollectiveRow::op>
      rows(db, "ORDER BY track_id, start_ns");
  read_intervals(
      rows, context, "collectives", EventSource::kCollective, false, tracks, part,
      [](const CollectiveRow& row) {
        return Interval{row.track, row.start_ns, row.dur_ns, static_cast<std::uint32_t>(row.op), 0};
      });
}

void read_instants(Database& db, const TableContext& context, std::size_t tracks, TablePart& part) {
  using profiler::InstantRow;
  schema::Select<schema::kTable<InstantRow>, &InstantRow::track, &InstantRow::ts_ns,
                 &InstantRow::name>
      rows(db, "ORDER BY track_id, ts_ns");
  read_intervals(rows, context, "instants", EventSource::kInstant, false, tracks, part,
                 [](const InstantRow& row) {
                   return Interval{row.track, row.ts_ns, 0, row.name, 0};
                 });
}

// One series per track of a table's (track, time, value) rows.
template <const auto& kTable, auto kTrack, auto kTime, auto kValue>
void read_series(Database& db, const std::string& title,
                 std::map<TrackId, std::vector<CounterRow>>& out) {
  using Row = typename std::remove_cvref_t<decltype(kTable)>::Row;
  std::map<TrackId, CounterRow> series;
  schema::for_each<kTable, kTrack, kTime, kValue>(
      db, "ORDER BY track_id, ts_ns", [&](const Row& point) {
        CounterRow& row = series[point.*kTrack];
        row.times.push_back(point.*kTime);
        row.values.push_back(static_cast<double>(point.*kValue));
      });
  for (auto& [track, row] : series) {
    row.title = title;
    row.times.shrink_to_fit();
    row.values.shrink_to_fit();
    row.finish();
    out[track].push_back(std::move(row));
  }
}

void read_small_tables(Database& db, const TableContext& context, std::size_t tracks,
                       TablePart& part) {
  read_collectives(db, context, tracks, part);
  read_instants(db, context, tracks, part);
  using Counter = profiler::CounterRow;
  using Queue = profiler::QueueSampleRow;
  read_series<schema::kTable<Counter>, &Counter::track, &Counter::ts_ns, &Counter::value>(
      db, "value", part.counters);
  read_series<schema::kTable<Queue>, &Queue::track, &Queue::ts_ns, &Queue::depth>(db, "depth",
                                                                                  part.counters);
  using profiler::RangeRow;
  using profiler::StepRow;
  schema::for_each<schema::kTable<StepRow>, &StepRow::step, &StepRow::start_ns, &StepRow::end_ns>(
      db, "ORDER BY step", [&](const StepRow& step) {
        part.steps.push_back({step.step, step.start_ns, step.end_ns});
      });
  if (!part.steps.empty()) return;
  // A trace cut short before its step rows were written: the step ranges
  // carry their numbers as their argument.
  schema::for_each<schema::kTable<RangeRow>, &RangeRow::arg, &RangeRow::start_ns,
                   &RangeRow::dur_ns>(
      db, "WHERE category = 1 AND arg IS NOT NULL ORDER BY arg", [&](const RangeRow& range) {
        part.steps.push_back({*range.arg, range.start_ns, range.start_ns + range.dur_ns});
      });
}

void read_api_call_table(Database& db, const TableContext& context, std::size_t tracks,
                         TablePart& part) {
  read_correlated<profiler::ApiCallRow>(db, context, "CUDA API", EventSource::kApiCall, tracks,
                                        part);
}

void count_events(TimelineData& data, std::int64_t& first, std::int64_t& last) {
  for (const Lane& lane : data.lanes) {
    for (const EventRow& row : lane.rows) {
      data.events += row.size();
      first = std::min(first, row.starts.front());
      last = std::max(last, row.ends.back());
    }
    for (const CounterRow& row : lane.counters) {
      data.events += row.size();
      first = std::min(first, row.times.front());
      last = std::max(last, row.times.back());
    }
  }
}

LaneKind lane_kind(TrackKind kind) {
  switch (kind) {
    case TrackKind::kGpuStream:
    case TrackKind::kGpuDevice:
      return LaneKind::kGpuStream;
    case TrackKind::kCollective:
      return LaneKind::kCollective;
    case TrackKind::kCounter:
      return LaneKind::kCounter;
    case TrackKind::kQueue:
      return LaneKind::kQueue;
    case TrackKind::kHostThread:
      break;
  }
  return LaneKind::kThread;
}

// The time span the step table covers, for progress estimates only.
TimeWindow step_span(Database& db) {
  const auto span = schema::read_one<kStepTableSpan>(db);
  if (!span || !span->first_ns) return {0, 0};
  return {*span->first_ns, span->last_ns.value_or(0)};
}

// Collectives were read with their op number as the name: intern the op
// names and point the rows at them.
void intern_collective_op_names(TablePart& part, std::vector<std::string>& strings) {
  std::map<std::int64_t, std::uint32_t> op_names;
  for (auto& [track, rows] : part.rows) {
    for (EventRow& row : rows) {
      if (row.source != EventSource::kCollective) continue;
      for (std::uint32_t& name : row.names) {
        auto [it, added] = op_names.emplace(name, 0);
        if (added) {
          it->second = static_cast<std::uint32_t>(strings.size());
          strings.emplace_back(
              profiler::collective_op_name(static_cast<profiler::CollectiveOp>(name)));
        }
        name = it->second;
      }
    }
  }
}

// One lane per track that holds anything, host threads first, then GPU
// streams, collectives, queues and counters, each kind by track id. The API
// calls' part (2) is left for merge_api_calls.
template <std::size_t kTables>
void add_lanes(const std::vector<profiler::TrackRow>& tracks, std::array<TablePart, kTables>& parts,
               TimelineData& data) {
  for (const profiler::TrackRow& track : tracks) {
    Lane lane;
    lane.kind = lane_kind(track.kind);
    lane.title = analyzer::track_label(track, data.name(track.name));
    lane.track = track.id;
    for (std::size_t p = 0; p < kTables; ++p) {
      if (p == 2) continue;
      TablePart& part = parts[p];
      if (auto it = part.rows.find(track.id); it != part.rows.end())
        for (EventRow& row : it->second) lane.rows.push_back(std::move(row));
      if (auto it = part.counters.find(track.id); it != part.counters.end())
        for (CounterRow& row : it->second) lane.counters.push_back(std::move(row));
    }
    if (lane.row_count() > 0) data.lanes.push_back(std::move(lane));
  }
  std::stable_sort(data.lanes.begin(), data.lanes.end(),
                   [](const Lane& a, const Lane& b) { return a.kind < b.kind; });
}

}  // namespace

TimelineData load_timeline(const std::filesystem::path& path, TaskControl* control,
                           TimelineParts parts_wanted) {
  TimelineData data;
  data.path = path.string();
  std::vector<profiler::TrackRow> tracks;
  TimeWindow span;
  {
    profiler::TraceReader reader(path);  // checks the file is a trace of this schema
    data.strings = reader.strings();
    tracks = reader.tracks();
    if (const auto rank = reader.meta_value("rank")) data.rank = std::atoll(rank->c_str());
    span = step_span(reader.db());
  }
  std::sort(tracks.begin(), tracks.end(),
            [](const profiler::TrackRow& a, const profiler::TrackRow& b) { return a.id < b.id; });
  const std::size_t track_count = tracks.size();

  // The three large tables each on a connection of its own, the rest together.
  constexpr std::size_t kTables = 4;
  std::array<TablePart, kTables> parts;
  LoadProgress progress(control, kTables, span);
  analyzer::ParallelOptions options;
  options.threads = 3;
  analyzer::parallel_for(kTables, options, [&](std::size_t table) {
    Database db(path, Database::Mode::kReadOnly);
    // Reading pages through a memory map instead of copying them saves about
    // a third of the time of these sequential scans.
    db.exec("PRAGMA mmap_size = 4294967296");
    const TableContext context{progress, table};
    TablePart& part = parts[table];
    switch (table) {
      case 0:
        read_ranges(db, context, track_count, part);
        break;
      case 1:
        read_correlated<profiler::StoredGpuActivityRow>(
            db, context, "kernels", EventSource::kGpuActivity, track_count, part);
        break;
      case 2:
        if (parts_wanted == TimelineParts::kAll)
          read_api_call_table(db, context, track_count, part);
        break;
      default:
        read_small_tables(db, context, track_count, part);
        break;
    }
    progress.done(table);
  });

  intern_collective_op_names(parts[3], data.strings);
  add_lanes(tracks, parts, data);

  data.steps = std::move(parts[3].steps);
  std::sort(data.steps.begin(), data.steps.end(),
            [](const StepSpan& a, const StepSpan& b) { return a.step < b.step; });

  std::int64_t first = INT64_MAX, last = INT64_MIN;
  count_events(data, first, last);
  data.extent = {first, last};
  if (!parts[2].rows.empty()) {
    ApiCallRows api_calls;
    api_calls.rows = std::move(parts[2].rows);
    for (const profiler::TrackRow& track : tracks)
      api_calls.titles[track.id] = analyzer::track_label(track, data.name(track.name));
    merge_api_calls(data, std::move(api_calls));
  }
  if (data.lanes.empty()) throw Error("the trace holds no events to show", data.path);
  data.extent.end_ns = std::max(data.extent.end_ns, data.extent.start_ns + 1);
#ifdef __GLIBC__
  // The readers' threads grew and trimmed large arrays; hand the freed heap
  // back so the viewer's footprint is what it holds (about 23 bytes an event).
  malloc_trim(0);
#endif
  return data;
}

ApiCallRows read_api_calls(const std::filesystem::path& path, TaskControl* control) {
  ApiCallRows out;
  std::vector<profiler::TrackRow> tracks;
  TimeWindow span;
  std::vector<std::string> strings;
  {
    profiler::TraceReader reader(path);
    tracks = reader.tracks();
    strings = reader.strings();
    span = step_span(reader.db());
  }
  for (const profiler::TrackRow& track : tracks)
    out.titles[track.id] = analyzer::track_label(
        track, track.name < strings.size() ? strings[track.name] : std::string());
  Database db(path, Database::Mode::kReadOnly);
  db.exec("PRAGMA mmap_size = 4294967296");
  LoadProgress progress(control, 1, span);
  TablePart part;
  read_api_call_table(db, TableContext{progress, 0}, tracks.size(), part);
  out.rows = std::move(part.rows);
#ifdef __GLIBC__
  malloc_trim(0);
#endif
  return out;
}

void merge_api_calls(TimelineData& data, ApiCallRows api_calls) {
  std::int64_t first = data.extent.start_ns, last = data.extent.end_ns;
  for (auto& [track, rows] : api_calls.rows) {
    auto lane = std::find_if(data.lanes.begin(), data.lanes.end(),
                             [track = track](const Lane& l) { return l.track == track; });
    if (lane == data.lanes.end()) {
      Lane added;
      added.kind = LaneKind::kThread;
      added.title = api_calls.titles.count(track) ? api_calls.titles[track]
                                                  : "track " + std::to_string(track);
      added.track = track;
      data.lanes.push_back(std::move(added));
      lane = data.lanes.end() - 1;
    }
    for (EventRow& row : rows) {
      data.events += row.size();
      first = std::min(first, row.starts.front());
      last = std::max(last, row.ends.back());
      lane->rows.push_back(std::move(row));
    }
  }
  data.extent = {first, std::max(last, first + 1)};
}

}  // namespace parity::gui
