// The declared tables (schema/tables.hpp) against the database schema_sql()
// creates, the SQL generated from them, and the refusal of corrupt rows.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "expect_error.hpp"
#include "parity/profiler/schema/insert.hpp"
#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "parity/profiler/trace_writer.hpp"
#include "temp_dir.hpp"
#include "trace_fixture.hpp"

using namespace parity::profiler;

namespace {

// PRAGMA table_info as a declared projection: one row per column, in order.
struct TableColumn {
  std::string name;
};
constexpr auto kTableInfo = schema::projection<TableColumn>(
    "table_info", "", schema::column<TableColumn>("name", &TableColumn::name));

std::vector<std::string> created_columns(sql::Database& db, std::string_view table) {
  std::vector<std::string> names;
  schema::Select<kTableInfo> columns(db, "ORDER BY cid",
                                     "pragma_table_info('" + std::string(table) + "')");
  TableColumn column;
  while (columns.next(column)) names.push_back(column.name);
  return names;
}

template <class Declaration>
std::vector<std::string> declared_columns(const Declaration& table) {
  std::vector<std::string> names;
  schema::for_each_column(table.columns,
                          [&](const auto& column, int) { names.emplace_back(column.name); });
  return names;
}

}  // namespace

TEST_CASE("every table is declared with the columns schema_sql() creates, in order", "[unit]") {
  TempDir dir;
  { TraceWriter writer(dir / "empty.db"); }
  sql::Database db(dir / "empty.db", sql::Database::Mode::kReadOnly);
  std::vector<std::string> tables;
  schema::for_each_table([&](const auto& table) {
    tables.emplace_back(table.name);
    INFO("table " << table.name);
    CHECK(declared_columns(table) == created_columns(db, table.name));
  });
  CHECK(tables == std::vector<std::string>(std::begin(kTraceTables), std::end(kTraceTables)));
}

TEST_CASE("inserts and selects are generated from the declarations", "[unit]") {
  CHECK(schema::insert_sql<schema::kTable<CounterRow>>() ==
        "INSERT INTO counter(track_id, ts_ns, value) VALUES (?, ?, ?)");
  CHECK(schema::insert_sql<schema::kTable<StepRow>>("INSERT OR REPLACE", 2) ==
        "INSERT OR REPLACE INTO step(step, track_id, start_ns, end_ns) VALUES (?, ?, ?, ?), "
        "(?, ?, ?, ?)");
  CHECK(schema::Select<schema::kTable<InstantRow>>::sql("instant", "ORDER BY ts_ns") ==
        "SELECT track_id, ts_ns, name_id, category, arg FROM instant ORDER BY ts_ns");
  // A projection reads only the columns it names, in the order it names them.
  CHECK(schema::Select<schema::kTable<RangeRow>, &RangeRow::dur_ns, &RangeRow::track>::sql(
            "range", "") == "SELECT dur_ns, track_id FROM range");
}

TEST_CASE("typed readers read back what the writer wrote", "[unit]") {
  TempDir dir;
  const auto path = dir / "fixture.db";
  fixture::write_sample_trace(path);
  TraceReader trace(path);
  const auto ranges = schema::read_all<schema::kTable<RangeRow>>(
      trace.db(), "WHERE category = 4 ORDER BY start_ns LIMIT 1");
  REQUIRE(ranges.size() == 1);
  CHECK(ranges[0].track == fixture::kMainThread);
  CHECK(ranges[0].start_ns == 1'110'000);
  CHECK(ranges[0].dur_ns == 600'000);
  CHECK(ranges[0].category == Category::kOp);
  CHECK(ranges[0].depth == 2);
  CHECK(ranges[0].parent_id == 2);
  CHECK_FALSE(ranges[0].arg);
  const auto launch = schema::read_one<schema::kTable<LaunchConfigRow>>(trace.db());
  REQUIRE(launch);
  CHECK(launch->grid == std::array<std::uint32_t, 3>{128, 2, 1});
  CHECK(launch->shared_bytes == 1024);
  CHECK(launch->registers == 64);
}

TEST_CASE("a stored value out of range of its field or enumeration is a corrupt row", "[unit]") {
  TempDir dir;
  const auto path = dir / "fixture.db";
  fixture::write_sample_trace(path);
  const auto corrupt = [&](const std::string& update) {
    sql::Database db(path, sql::Database::Mode::kCreate);
    db.exec(update);
  };
  const auto read_ranges = [&] {
    sql::Database db(path, sql::Database::Mode::kReadOnly);
    schema::read_all<schema::kTable<RangeRow>>(db);
  };

  corrupt("UPDATE range SET category = 257 WHERE category = 4");
  parity::test::expect_error(read_ranges, "corrupt range row: column category: value 257",
                             {path.string(), "range.category"});
  corrupt("UPDATE range SET category = 7 WHERE category = 257");
  parity::test::expect_error(read_ranges, "value 7 is not a known enumerator", {"range.category"});
  corrupt("UPDATE range SET category = 4 WHERE category = 7");
  corrupt("UPDATE range SET depth = -1 WHERE depth = 2");
  parity::test::expect_error(
      read_ranges, "corrupt range row: column depth: value -1 is out of range", {"range.depth"});
  corrupt("UPDATE track SET kind = 9 WHERE id = 1");
  parity::test::expect_error([&] { TraceReader reader(path); }, "corrupt track row: column kind",
                             {"track.kind"});
}
