// One table of an Nsight Systems SQLite export, read by column name. NVIDIA
// says the export's schema "can and will change": columns are found with
// PRAGMA table_info, each is asked for under its names old and new, a column
// that is absent reads as NULL unless the importer needs it, and a table that
// is absent (nsys creates only non-empty ones) is simply not there.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "parity/core/error.hpp"
#include "parity/profiler/sqlite.hpp"

namespace parity::importers::trace {

// A row being read: its values by the index declare() gave the column.
class NsysRow {
 public:
  explicit NsysRow(const profiler::sql::Statement& statement) : statement_(statement) {}
  // nullopt where the column is absent from the table or the value is NULL.
  std::optional<std::int64_t> integer(int column) const;
  std::int64_t integer_or(int column, std::int64_t fallback) const {
    return integer(column).value_or(fallback);
  }
  std::optional<std::string> text(int column) const;

 private:
  const profiler::sql::Statement& statement_;
};

class NsysTable {
 public:
  // The table, or nullopt when the export has none of that name.
  static std::optional<NsysTable> open(profiler::sql::Database& db, std::string name);

  const std::string& name() const { return name_; }
  bool has(std::string_view column) const { return columns_.count(std::string(column)) > 0; }
  // Declares a column to read, by its names in order of preference; returns
  // its index for NsysRow, -1 where the table has none of them.
  int column(std::initializer_list<std::string_view> names);
  // The same, but parity::Error (naming the file, the table and the column)
  // where the table has none of the names.
  int required(std::initializer_list<std::string_view> names);

  // Calls `visit` for each row, ordered by `order_by` (SQL, may be empty).
  // A read that fails (a damaged file) throws parity::Error naming the table.
  void for_each(std::string_view order_by, const std::function<void(const NsysRow&)>& visit);
  std::int64_t row_count();
  // The processes of a globalTid or globalPid column: each distinct value
  // with its thread bits (0-23) cleared. Empty where the table has no such column.
  std::set<std::int64_t> distinct_processes(std::initializer_list<std::string_view> names);

 private:
  NsysTable(profiler::sql::Database& db, std::string name, std::set<std::string> columns)
      : db_(&db), name_(std::move(name)), columns_(std::move(columns)) {}
  [[noreturn]] void fail(const Error& error) const;

  profiler::sql::Database* db_;
  std::string name_;
  std::set<std::string> columns_;  // as the table declares them
  std::vector<std::string> selected_;
};

}  // namespace parity::importers::trace
