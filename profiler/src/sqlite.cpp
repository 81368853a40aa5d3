#include "parity/profiler/sqlite.hpp"

#include <sqlite3.h>

#include "parity/core/error.hpp"

namespace parity::profiler::sql {

Database::Database(const std::filesystem::path& path, Mode mode) : path_(path) {
  if (mode == Mode::kReadOnly) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
      throw Error("file not found", path.string(), "check the path of the trace database");
    if (std::filesystem::is_directory(path, ec))
      throw Error("expected a trace database file, got a directory", path.string());
  }
  const int flags = mode == Mode::kReadOnly ? SQLITE_OPEN_READONLY
                                            : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  const int code = sqlite3_open_v2(path.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (code != SQLITE_OK) {
    const std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(code);
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error("cannot open database: " + message, path.string());
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, 5000);
}

Database::~Database() { sqlite3_close(db_); }

void Database::fail(int code, std::string_view context) const {
  std::string message = sqlite3_errmsg(db_);
  const int primary = code & 0xff;
  std::string hint;
  if (primary == SQLITE_NOTADB)
    hint = "the file is not an SQLite database; pass a trace written by parity";
  else if (primary == SQLITE_CORRUPT)
    hint = "the database is damaged or truncated";
  else if (primary == SQLITE_FULL)
    hint = "the disk is full";
  throw Error(message + " while running: " + std::string(context), path_.string(), hint);
}

void Database::exec(std::string_view sql) {
  const std::string text(sql);
  const int code = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
  if (code != SQLITE_OK) fail(code, text);
}

Statement::Statement(Database& db, std::string_view sql) : db_(db), sql_(sql) {
  const int code = sqlite3_prepare_v3(db.handle(), sql_.c_str(), static_cast<int>(sql_.size()),
                                      SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
  if (code != SQLITE_OK) db.fail(code, sql_);
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int index, std::int64_t value) {
  const int code = sqlite3_bind_int64(stmt_, index, value);
  if (code != SQLITE_OK) db_.fail(code, sql_);
  return *this;
}

Statement& Statement::bind(int index, double value) {
  const int code = sqlite3_bind_double(stmt_, index, value);
  if (code != SQLITE_OK) db_.fail(code, sql_);
  return *this;
}

Statement& Statement::bind(int index, std::string_view text) {
  const int code = sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()),
                                     SQLITE_TRANSIENT);
  if (code != SQLITE_OK) db_.fail(code, sql_);
  return *this;
}

Statement& Statement::bind_null(int index) {
  const int code = sqlite3_bind_null(stmt_, index);
  if (code != SQLITE_OK) db_.fail(code, sql_);
  return *this;
}

bool Statement::step() {
  const int code = sqlite3_step(stmt_);
  if (code == SQLITE_ROW) return true;
  if (code == SQLITE_DONE) return false;
  sqlite3_reset(stmt_);
  db_.fail(code, sql_);
}

void Statement::reset() { sqlite3_reset(stmt_); }

std::int64_t Statement::column_int(int column) const { return sqlite3_column_int64(stmt_, column); }
double Statement::column_double(int column) const { return sqlite3_column_double(stmt_, column); }
bool Statement::column_is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}
std::string Statement::column_text(int column) const {
  const auto* text = sqlite3_column_text(stmt_, column);
  if (!text) return {};
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::int64_t query_int(Database& db, std::string_view sql) {
  Statement statement(db, sql);
  if (!statement.step()) throw Error("query returned no row: " + std::string(sql), db.path().string());
  return statement.column_int(0);
}

bool table_exists(Database& db, std::string_view table) {
  Statement statement(db, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?");
  statement.bind(1, table);
  statement.step();
  return statement.column_int(0) > 0;
}

}  // namespace parity::profiler::sql
