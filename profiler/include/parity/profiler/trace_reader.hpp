// TraceReader: opens a trace database read-only and checks that it is one:
// an SQLite file, with Parity's meta table, of the schema version this build
// reads, with every table present. Anything else is a parity::Error that says
// which of these failed. Also loads the small tables (strings, tracks, meta).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "parity/profiler/sqlite.hpp"
#include "parity/profiler/trace_rows.hpp"

namespace parity::profiler {

class TraceReader {
 public:
  explicit TraceReader(const std::filesystem::path& path);

  sql::Database& db() { return db_; }
  const std::filesystem::path& path() const { return db_.path(); }

  const std::map<std::string, std::string>& meta() const { return meta_; }
  std::optional<std::string> meta_value(const std::string& key) const;
  // Text of an interned string; "?" for an id the table does not hold.
  const std::string& string(NameId id) const;
  const std::vector<std::string>& strings() const { return strings_; }
  const std::vector<TrackRow>& tracks() const { return tracks_; }
  const TrackRow* track(TrackId id) const;
  std::vector<ParameterRow> parameters();

 private:
  sql::Database db_;
  std::map<std::string, std::string> meta_;
  std::vector<std::string> strings_;
  std::vector<TrackRow> tracks_;
};

}  // namespace parity::profiler
