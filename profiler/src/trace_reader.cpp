#include "parity/profiler/trace_reader.hpp"

#include <sqlite3.h>

#include "parity/core/error.hpp"
#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/profiler/trace_schema.hpp"

namespace parity::profiler {
namespace {

// SQLite reports "file is not a database" only at the first read; make that
// read happen here, with a message about the file rather than the query.
void check_is_sqlite(sql::Database& db) {
  const int code =
      sqlite3_exec(db.handle(), "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
  if (code == SQLITE_OK) return;
  if ((code & 0xff) == SQLITE_NOTADB)
    throw Error("not a trace database: the file is not SQLite", db.path().string(),
                "pass a .db file written by parity-train --trace or an importer");
  db.fail(code, "reading the database header");
}

}  // namespace

TraceReader::TraceReader(const std::filesystem::path& path)
    : db_(path, sql::Database::Mode::kReadOnly) {
  check_is_sqlite(db_);
  if (!sql::table_exists(db_, "meta"))
    throw Error("not a Parity trace: the database has no meta table", path.string(),
                "pass a .db file written by parity-train --trace or an importer");
  schema::for_each<schema::kTable<MetaRow>>(
      db_, {}, [&](const MetaRow& row) { meta_[row.key] = row.value; });
  const auto version = meta_value("schema_version");
  if (!version) throw Error("not a Parity trace: meta has no schema_version", path.string());
  if (*version != std::to_string(kSchemaVersion))
    throw Error("trace schema version " + *version + ", but this parity reads version " +
                    std::to_string(kSchemaVersion),
                path.string(), "open it with the parity release that wrote it, or record again");
  for (const auto table : kTraceTables)
    if (!sql::table_exists(db_, table))
      throw Error("trace is missing table '" + std::string(table) + "'", path.string(),
                  "the file is damaged or was not written by this schema version");

  schema::for_each<schema::kTable<StringRow>>(db_, "ORDER BY id", [&](const StringRow& row) {
    if (row.id > 0x7fffffff)
      throw Error("string id " + std::to_string(row.id) + " out of range",
                  path.string() + ": string");
    if (row.id >= strings_.size()) strings_.resize(std::size_t{row.id} + 1, "?");
    strings_[row.id] = row.text;
  });
  tracks_ = schema::read_all<schema::kTable<TrackRow>>(db_, "ORDER BY id");
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
  return schema::read_all<schema::kTable<ParameterRow>>(db_, "ORDER BY idx");
}

}  // namespace parity::profiler
