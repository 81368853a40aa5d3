#include "parity/analyzer/trace_summary.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <optional>
#include <sstream>

#include "parity/core/error.hpp"
#include "parity/profiler/schema/select.hpp"

namespace parity::analyzer {
namespace {

namespace schema = profiler::schema;

// Tables whose rows lie on a track, with their time columns.
struct TimedTable {
  const char* table;
  const char* start;
  const char* end;
};
constexpr TimedTable kTimedTables[] = {
    {"range", "start_ns", "start_ns + dur_ns"},
    {"instant", "ts_ns", "ts_ns"},
    {"counter", "ts_ns", "ts_ns"},
    {"queue_sample", "ts_ns", "ts_ns"},
    {"grad_ready", "ts_ns", "ts_ns"},
    {"collective", "start_ns", "start_ns + dur_ns"},
    {"gpu_activity", "start_ns", "start_ns + dur_ns"},
    {"api_call", "start_ns", "start_ns + dur_ns"},
};

// Projections over one of kTimedTables, named in the FROM clause given at run time.
struct TimeSpan {
  std::optional<std::int64_t> first_ns, last_ns;
};
constexpr auto kTimeSpan = schema::projection<TimeSpan>(
    "timed table", "", schema::column<TimeSpan>("min(first_ns)", &TimeSpan::first_ns),
    schema::column<TimeSpan>("max(last_ns)", &TimeSpan::last_ns));

struct TrackRows {
  profiler::TrackId track = 0;
  std::int64_t rows = 0;
};
constexpr auto kTrackRows = schema::projection<TrackRows>(
    "timed table", "", schema::column<TrackRows>("track_id", &TrackRows::track),
    schema::column<TrackRows>("count(*)", &TrackRows::rows));

std::string seconds(std::int64_t ns) {
  char text[48];
  std::snprintf(text, sizeof text, "%.6f s", static_cast<double>(ns) * 1e-9);
  return text;
}

}  // namespace

TraceSummary summarize(profiler::TraceReader& trace) {
  TraceSummary summary;
  summary.path = trace.path().string();
  summary.meta = trace.meta();
  summary.complete = trace.meta_value("complete").value_or("0") == "1";
  const std::string dropped = trace.meta_value("dropped_records").value_or("0");
  const auto [end, error] =
      std::from_chars(dropped.data(), dropped.data() + dropped.size(), summary.dropped_records);
  if (error != std::errc() || end != dropped.data() + dropped.size())
    throw Error("meta.dropped_records is not a count: '" + dropped + "'", summary.path);

  for (const auto table : profiler::kTraceTables) {
    const auto rows =
        profiler::sql::query_int(trace.db(), "SELECT count(*) FROM " + std::string(table));
    summary.table_rows.emplace_back(std::string(table), static_cast<std::uint64_t>(rows));
  }

  std::map<profiler::TrackId, std::uint64_t> rows_per_track;
  for (const auto& timed : kTimedTables) {
    schema::Select<kTimeSpan> spans(trace.db(), {},
                                    std::string("(SELECT ") + timed.start + " AS first_ns, " +
                                        timed.end + " AS last_ns FROM " + timed.table + ")");
    TimeSpan span;
    if (spans.next(span) && span.first_ns) {
      const auto first = *span.first_ns;
      const auto last = span.last_ns.value_or(first);
      summary.first_ns = summary.first_ns ? std::min(*summary.first_ns, first) : first;
      summary.last_ns = summary.last_ns ? std::max(*summary.last_ns, last) : last;
    }
    schema::Select<kTrackRows> counts(trace.db(), "GROUP BY track_id", timed.table);
    TrackRows count;
    while (counts.next(count))
      rows_per_track[count.track] += static_cast<std::uint64_t>(count.rows);
  }
  for (const auto& track : trace.tracks()) {
    summary.tracks.push_back(TrackSummary{track.id,
                                          std::string(profiler::track_kind_name(track.kind)),
                                          trace.string(track.name), rows_per_track[track.id]});
  }
  return summary;
}

nlohmann::json to_json(const TraceSummary& summary) {
  nlohmann::json json;
  json["path"] = summary.path;
  json["meta"] = summary.meta;
  json["complete"] = summary.complete;
  json["dropped_records"] = summary.dropped_records;
  json["time_span_ns"] = nullptr;
  if (summary.first_ns)
    json["time_span_ns"] = {{"first", *summary.first_ns},
                            {"last", *summary.last_ns},
                            {"duration", *summary.last_ns - *summary.first_ns}};
  json["tables"] = nlohmann::json::object();
  for (const auto& [table, rows] : summary.table_rows) json["tables"][table] = rows;
  json["tracks"] = nlohmann::json::array();
  for (const auto& track : summary.tracks)
    json["tracks"].push_back(
        {{"id", track.id}, {"kind", track.kind}, {"name", track.name}, {"rows", track.rows}});
  return json;
}

std::string to_text(const TraceSummary& summary) {
  std::ostringstream out;
  const auto meta = [&](const std::string& key) {
    const auto it = summary.meta.find(key);
    return it == summary.meta.end() ? std::string("-") : it->second;
  };
  out << "trace           " << summary.path << '\n'
      << "schema version  " << meta("schema_version") << " (written by parity "
      << meta("tool_version") << ")\n"
      << "command line    " << meta("command_line") << '\n'
      << "host            " << meta("host") << ", pid " << meta("pid") << ", rank " << meta("rank")
      << " of " << meta("world_size") << '\n'
      << "created         " << meta("created_at") << '\n'
      << "clock           " << meta("clock") << " (ticks: " << meta("tick_source") << ")\n"
      << "complete        "
      << (summary.complete ? "yes"
                           : "no: the recording process did not finish (killed or crashed); "
                             "everything committed before that is here")
      << '\n';
  if (summary.first_ns)
    out << "time span       " << seconds(*summary.last_ns - *summary.first_ns) << " (from "
        << *summary.first_ns << " ns to " << *summary.last_ns << " ns)\n";
  else
    out << "time span       empty trace\n";
  out << "dropped records " << summary.dropped_records
      << (summary.dropped_records ? "  (rings were full: raise slots_per_thread)" : "") << "\n\n";

  out << "rows per table\n";
  for (const auto& [table, rows] : summary.table_rows) {
    char line[80];
    std::snprintf(line, sizeof line, "  %-14s %12llu\n", table.c_str(),
                  static_cast<unsigned long long>(rows));
    out << line;
  }
  out << "\ntracks (" << summary.tracks.size() << ")\n";
  for (const auto& track : summary.tracks) {
    char line[96];
    std::snprintf(line, sizeof line, "  %4u  %-12s %12llu rows  ", track.id, track.kind.c_str(),
                  static_cast<unsigned long long>(track.rows));
    out << line << track.name << '\n';
  }
  return out.str();
}

}  // namespace parity::analyzer
