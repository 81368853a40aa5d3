// Reading a trace's counter series in tests. Header-only: only the tests that
// read traces link parity::profiler.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "parity/profiler/trace_reader.hpp"

// The values of counter `name` in a trace database, in time order.
inline std::vector<double> counter_values(const std::filesystem::path& db,
                                          const std::string& name) {
  namespace sql = parity::profiler::sql;
  parity::profiler::TraceReader trace(db);
  sql::Statement rows(trace.db(),
                      "SELECT c.value FROM counter c JOIN track t ON t.id = c.track_id JOIN string "
                      "s ON s.id = t.name_id WHERE s.text = ?1 ORDER BY c.ts_ns");
  rows.bind(1, name);
  std::vector<double> values;
  while (rows.step()) values.push_back(rows.column_double(0));
  return values;
}
