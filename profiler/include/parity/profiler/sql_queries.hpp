// Ad-hoc SQL over a trace database for results that no table row stands
// behind: text aggregates (group_concat, quote), pragmas, query plans. Rows of
// a schema table are read through the typed readers (schema/select.hpp), one
// integer (count(*)) through sql::query_int (sqlite.hpp). With those, these
// are the only positional column reads outside the schema readers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "parity/profiler/sqlite.hpp"

namespace parity::profiler::sql {

// The first column of every row of `sql`, as text, in the order returned.
std::vector<std::string> query_texts(Database& db, std::string_view sql);
// The first column of the first row as text ("PRAGMA journal_mode");
// parity::Error if there is no row.
std::string query_text(Database& db, std::string_view sql);
// The plan SQLite makes for `query`: the detail of each row of EXPLAIN QUERY
// PLAN, one per line.
std::string query_plan(Database& db, std::string_view query);

}  // namespace parity::profiler::sql
