// Thin RAII wrappers over the SQLite C API. Every call is checked: a failure
// throws parity::Error naming the database file and the statement.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace parity::profiler::sql {

class Database {
 public:
  enum class Mode { kReadOnly, kCreate };
  Database(const std::filesystem::path& path, Mode mode);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs one or more statements that return no rows.
  void exec(std::string_view sql);
  // Wraps an SQLite error code into a parity::Error about this database.
  [[noreturn]] void fail(int code, std::string_view context) const;

  sqlite3* handle() const { return db_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  sqlite3* db_ = nullptr;
  std::filesystem::path path_;
};

class Statement {
 public:
  Statement(Database& db, std::string_view sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Binding (1-based parameter index, as in SQLite).
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view text);
  Statement& bind_null(int index);
  Statement& bind(int index, std::optional<std::int64_t> value) {
    return value ? bind(index, *value) : bind_null(index);
  }

  // Advances to the next row; false when done. Inserts: call once, then reset().
  bool step();
  void reset();
  // Runs an insert/update with the current bindings and resets the statement.
  void run() {
    step();
    reset();
  }

  std::int64_t column_int(int column) const;
  double column_double(int column) const;
  std::string column_text(int column) const;
  bool column_is_null(int column) const;

  Database& database() const { return db_; }

 private:
  Database& db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

// One value of a single-row query such as "SELECT count(*) FROM range".
std::int64_t query_int(Database& db, std::string_view sql);
bool table_exists(Database& db, std::string_view table);

}  // namespace parity::profiler::sql
