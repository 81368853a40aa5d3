// Reading a trace's counter series in tests. Header-only: only the tests that
// read traces link parity::profiler.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/profiler/trace_reader.hpp"

// The values of counter `name` in a trace database, in time order.
inline std::vector<double> counter_values(const std::filesystem::path& db,
                                          const std::string& name) {
  namespace schema = parity::profiler::schema;
  using parity::profiler::CounterRow;
  parity::profiler::TraceReader trace(db);
  schema::Select<schema::kTable<CounterRow>, &CounterRow::value> rows(
      trace.db(),
      "WHERE track_id IN (SELECT t.id FROM track t JOIN string s ON s.id = t.name_id WHERE "
      "s.text = ?1) ORDER BY ts_ns");
  rows.statement().bind(1, name);
  std::vector<double> values;
  CounterRow row;
  while (rows.next(row)) values.push_back(row.value);
  return values;
}
