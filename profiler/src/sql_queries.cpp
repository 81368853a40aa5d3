#include "parity/profiler/sql_queries.hpp"

#include "parity/core/error.hpp"

namespace parity::profiler::sql {

std::vector<std::string> query_texts(Database& db, std::string_view sql) {
  Statement statement(db, sql);
  std::vector<std::string> values;
  while (statement.step()) values.push_back(statement.column_text(0));
  return values;
}

std::string query_text(Database& db, std::string_view sql) {
  Statement statement(db, sql);
  if (!statement.step())
    throw Error("query returned no row: " + std::string(sql), db.path().string());
  return statement.column_text(0);
}

std::string query_plan(Database& db, std::string_view query) {
  // EXPLAIN QUERY PLAN's columns: id, parent, notused, detail.
  Statement explain(db, "EXPLAIN QUERY PLAN " + std::string(query));
  std::string text;
  while (explain.step()) text += explain.column_text(3) + "\n";
  return text;
}

}  // namespace parity::profiler::sql
