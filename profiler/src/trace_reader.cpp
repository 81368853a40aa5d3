#include "parity/profiler/trace_reader.hpp"

#include <sqlite3.h>

#include "parity/core/error.hpp"
#include "parity/profiler/trace_schema.hpp"

namespace parity::profiler {
namespace {

// SQLite reports "file is not a database" only at the first read; make that
// read happen here, with a message about the file rather than the query.
void check_is_sqlite(sql::Database& db) {
  const int code = sqlite3_exec(db.handle(), "SELECT count(*) FROM sqlite_master", nullptr,
                                nullptr, nullptr);
  if (code == SQLITE_OK) return;
  if ((code & 0xff) == SQLITE_NOTADB)
    throw Error("not a trace database: the file is not SQLite", db.path().string(),
                "pass a .db file written by parity-train --trace or an importer");
  db.fail(code, "reading the database header");
}

std::optional<std::int64_t> optional_column(const sql::Statement& statement, int column) {
  if (statement.column_is_null(column)) return std::nullopt;
  return statement.column_int(column);
}

}  // namespace

TraceReader::TraceReader(const std::filesystem::path& path)
    : db_(path, sql::Database::Mode::kReadOnly) {
  check_is_sqlite(db_);
  if (!sql::table_exists(db_, "meta"))
    throw Error("not a Parity trace: the database has no meta table", path.string(),
                "pass a .db file written by parity-train --trace or an importer");
  {
    sql::Statement statement(db_, "SELECT key, value FROM meta");
    while (statement.step()) meta_[statement.column_text(0)] = statement.column_text(1);
  }
  const auto version = meta_value("schema_version");
  if (!version)
    throw Error("not a Parity trace: meta has no schema_version", path.string());
  if (*version != std::to_string(kSchemaVersion))
    throw Error("trace schema version " + *version + ", but this parity reads version " +
                    std::to_string(kSchemaVersion),
                path.string(), "open it with the parity release that wrote it, or record again");
  for (const auto table : kTraceTables)
    if (!sql::table_exists(db_, table))
      throw Error("trace is missing table '" + std::string(table) + "'", path.string(),
                  "the file is damaged or was not written by this schema version");

  sql::Statement strings(db_, "SELECT id, text FROM string ORDER BY id");
  while (strings.step()) {
    const auto id = strings.column_int(0);
    if (id < 0 || id > 0x7fffffff)
      throw Error("string id " + std::to_string(id) + " out of range", path.string() + ": string");
    if (static_cast<std::size_t>(id) >= strings_.size())
      strings_.resize(static_cast<std::size_t>(id) + 1, "?");
    strings_[static_cast<std::size_t>(id)] = strings.column_text(1);
  }
  sql::Statement tracks(db_, "SELECT id, kind, name_id, pid, tid, device, stream FROM track "
                             "ORDER BY id");
  while (tracks.step()) {
    tracks_.push_back(TrackRow{static_cast<TrackId>(tracks.column_int(0)),
                               static_cast<TrackKind>(tracks.column_int(1)),
                               static_cast<NameId>(tracks.column_int(2)), optional_column(tracks, 3),
                               optional_column(tracks, 4), optional_column(tracks, 5),
                               optional_column(tracks, 6)});
  }
}

std::optional<std::string> TraceReader::meta_value(const std::string& key) const {
  const auto it = meta_.find(key);
  if (it == meta_.end()) return std::nullopt;
  return it->second;
}

const std::string& TraceReader::string(NameId id) const {
  static const std::string unknown = "?";
  return id < strings_.size() ? strings_[id] : unknown;
}

const TrackRow* TraceReader::track(TrackId id) const {
  for (const auto& row : tracks_)
    if (row.id == id) return &row;
  return nullptr;
}

std::vector<ParameterRow> TraceReader::parameters() {
  std::vector<ParameterRow> rows;
  sql::Statement statement(db_, "SELECT idx, name, shape, dtype, bytes FROM parameter ORDER BY idx");
  while (statement.step())
    rows.push_back(ParameterRow{statement.column_int(0), statement.column_text(1),
                                statement.column_text(2), statement.column_text(3),
                                statement.column_int(4)});
  return rows;
}

}  // namespace parity::profiler
