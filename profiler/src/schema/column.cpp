#include "parity/profiler/schema/column.hpp"

namespace parity::profiler::schema {

void fail_corrupt(const sql::Statement& statement, std::string_view table, std::string_view column,
                  std::string_view why) {
  const std::string place = std::string(table) + "." + std::string(column);
  throw Error("corrupt " + std::string(table) + " row: column " + std::string(column) + ": " +
                  std::string(why),
              statement.database().path().string() + ": " + place,
              "the trace is damaged or was not written by parity; record it again");
}

}  // namespace parity::profiler::schema
