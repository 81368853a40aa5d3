// TraceSummary: what `parity info` reports about a trace: its meta, time span,
// tracks with their row counts, rows per table, and dropped records.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "parity/profiler/trace_reader.hpp"

namespace parity::analyzer {

struct TrackSummary {
  profiler::TrackId id = 0;
  std::string kind;
  std::string name;
  std::uint64_t rows = 0;  // rows of every table that lie on this track
};

struct TraceSummary {
  std::string path;
  std::map<std::string, std::string> meta;
  std::vector<std::pair<std::string, std::uint64_t>> table_rows;  // schema order
  std::vector<TrackSummary> tracks;
  std::optional<std::int64_t> first_ns, last_ns;  // none for an empty trace
  std::uint64_t dropped_records = 0;
  bool complete = false;  // false: the recording process did not finish cleanly
};

TraceSummary summarize(profiler::TraceReader& trace);
nlohmann::json to_json(const TraceSummary& summary);
std::string to_text(const TraceSummary& summary);

}  // namespace parity::analyzer
