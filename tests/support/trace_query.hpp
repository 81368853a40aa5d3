// Ad-hoc SQL over a trace database in tests, for results that no table row
// stands behind: text aggregates (group_concat, quote), pragmas, query plans.
// Rows of a schema table are read through the profiler's typed readers
// (parity/profiler/schema/select.hpp) instead, and one integer (count(*),
// sum(...)) through sql::query_int. The only positional column reads of the
// tests are here. Header-only: only the tests that read traces link
// parity::profiler.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "parity/core/error.hpp"
#include "parity/profiler/sqlite.hpp"

namespace trace_query {

// The first column of every row of `sql`, as text, in the order returned.
inline std::vector<std::string> text_column(parity::profiler::sql::Database& db,
                                            std::string_view sql) {
  parity::profiler::sql::Statement statement(db, sql);
  std::vector<std::string> values;
  while (statement.step()) values.push_back(statement.column_text(0));
  return values;
}

// The first column of the first row of `sql` as text ("PRAGMA journal_mode");
// a parity::Error if there is no row.
inline std::string scalar_text(parity::profiler::sql::Database& db, std::string_view sql) {
  parity::profiler::sql::Statement statement(db, sql);
  if (!statement.step())
    throw parity::Error("query returned no row: " + std::string(sql), db.path().string());
  return statement.column_text(0);
}

// The plan SQLite makes for `query`: the detail column of each row of
// EXPLAIN QUERY PLAN (id, parent, notused, detail), one per line.
inline std::string query_plan(parity::profiler::sql::Database& db, std::string_view query) {
  parity::profiler::sql::Statement explain(db, "EXPLAIN QUERY PLAN " + std::string(query));
  std::string text;
  while (explain.step()) text += explain.column_text(3) + "\n";
  return text;
}

}  // namespace trace_query
