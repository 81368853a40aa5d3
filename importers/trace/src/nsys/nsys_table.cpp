#include "nsys/nsys_table.hpp"

#include "parity/profiler/sql_queries.hpp"

namespace parity::importers::trace {
namespace {

// An SQL string literal or identifier body: ' and " doubled.
std::string sql_quoted(std::string_view text, char quote) {
  std::string out(1, quote);
  for (const char c : text) {
    out += c;
    if (c == quote) out += c;
  }
  return out + quote;
}

constexpr std::string_view kHint =
    "the export may be damaged or cut short: export it again with nsys export --type sqlite";

}  // namespace

std::optional<std::int64_t> NsysRow::integer(int column) const {
  if (column < 0 || statement_.column_is_null(column)) return std::nullopt;
  return statement_.column_int(column);
}

std::optional<std::string> NsysRow::text(int column) const {
  if (column < 0 || statement_.column_is_null(column)) return std::nullopt;
  return statement_.column_text(column);
}

std::optional<NsysTable> NsysTable::open(profiler::sql::Database& db, std::string name) {
  try {
    if (!profiler::sql::table_exists(db, name)) return std::nullopt;
    const auto names = profiler::sql::query_texts(
        db, "SELECT name FROM pragma_table_info(" + sql_quoted(name, '\'') + ")");
    return NsysTable(db, std::move(name), std::set<std::string>(names.begin(), names.end()));
  } catch (const Error& error) {
    throw Error("cannot read the schema of table " + name + ": " + error.what_failed(),
                db.path().string(), std::string(kHint));
  }
}

int NsysTable::column(std::initializer_list<std::string_view> names) {
  for (const std::string_view name : names) {
    if (!has(name)) continue;
    selected_.emplace_back(name);
    return static_cast<int>(selected_.size() - 1);
  }
  return -1;
}

int NsysTable::required(std::initializer_list<std::string_view> names) {
  const int index = column(names);
  if (index >= 0) return index;
  std::string wanted;
  for (const std::string_view name : names)
    wanted += (wanted.empty() ? "" : " or ") + std::string(name);
  throw Error("table " + name_ + " has no column " + wanted, db_->path().string(),
              "is it an Nsight Systems export (nsys export --type sqlite)? a release whose "
              "schema renamed the column needs an importer that knows the new name");
}

void NsysTable::fail(const Error& error) const {
  throw Error("cannot read table " + name_ + ": " + error.what_failed(), db_->path().string(),
              std::string(kHint));
}

void NsysTable::for_each(std::string_view order_by,
                         const std::function<void(const NsysRow&)>& visit) {
  std::string sql = "SELECT ";
  for (std::size_t i = 0; i < selected_.size(); ++i)
    sql += (i ? ", " : "") + sql_quoted(selected_[i], '"');
  if (selected_.empty()) sql += "NULL";
  sql += " FROM " + sql_quoted(name_, '"');
  if (!order_by.empty()) sql += " ORDER BY " + std::string(order_by);
  // Only SQLite's failures are the file's; the visitor's errors pass as they are.
  std::optional<profiler::sql::Statement> statement;
  try {
    statement.emplace(*db_, sql);
  } catch (const Error& error) {
    fail(error);
  }
  const NsysRow row(*statement);
  for (;;) {
    bool more = false;
    try {
      more = statement->step();
    } catch (const Error& error) {
      fail(error);
    }
    if (!more) return;
    visit(row);
  }
}

std::int64_t NsysTable::row_count() {
  try {
    return profiler::sql::query_int(*db_, "SELECT count(*) FROM " + sql_quoted(name_, '"'));
  } catch (const Error& error) {
    fail(error);
  }
}

std::set<std::int64_t> NsysTable::distinct_processes(
    std::initializer_list<std::string_view> names) {
  std::set<std::int64_t> keys;
  for (const std::string_view name : names) {
    if (!has(name)) continue;
    // -16777216 is ~0xFFFFFF: every bit but the thread id's.
    const std::string sql = "SELECT DISTINCT (" + sql_quoted(name, '"') + " & -16777216) FROM " +
                            sql_quoted(name_, '"') + " WHERE " + sql_quoted(name, '"') +
                            " IS NOT NULL";
    try {
      profiler::sql::Statement statement(*db_, sql);
      while (statement.step()) keys.insert(statement.column_int(0));
    } catch (const Error& error) {
      fail(error);
    }
    break;
  }
  return keys;
}

}  // namespace parity::importers::trace
