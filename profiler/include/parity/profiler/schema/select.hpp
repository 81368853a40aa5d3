// Typed readers generated from a declaration (tables.hpp, or a reader's own
// projection). Select<Decl> reads every column of Decl into its row struct;
// Select<Decl, &Row::a, &Row::b> reads only those columns (hot loops pay for
// no other), leaving the rest of the row as it was. `tail` is the SQL after
// the FROM clause: "WHERE track_id = ?1 ORDER BY start_ns".
//
//   schema::for_each<schema::kTable<RangeRow>, &RangeRow::start_ns, &RangeRow::dur_ns>(
//       db, "ORDER BY track_id, start_ns, id", [&](const RangeRow& range) { ... });
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "parity/profiler/schema/declaration.hpp"
#include "parity/profiler/sqlite.hpp"

namespace parity::profiler::schema {
namespace detail {

template <class C>
constexpr auto unless_row_id(const C& column) {
  if constexpr (kIsRowId<C>)
    return std::tuple<>{};
  else
    return std::tuple<C>{column};
}

// The column of `Decl` stored in member `M`; a compile error if there is none.
template <const auto& Decl, auto M>
constexpr auto column_of() {
  using Row = typename std::remove_cvref_t<decltype(Decl)>::Row;
  using T = typename MemberTraits<decltype(M)>::Value;
  constexpr T Row::*wanted = M;
  Column<Row, T> found{{}, nullptr};
  for_each_column(Decl.columns, [&](const auto& column, int) {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(column)>, Column<Row, T>>)
      if (column.member == wanted) found = column;
  });
  if (found.member == nullptr) throw "the member is not a column of this declaration";
  return found;
}

}  // namespace detail

// The columns of a declaration that rows carry (all but RowIdColumns).
template <class Tuple>
constexpr auto stored_columns(const Tuple& columns) {
  return std::apply(
      [](const auto&... column) { return std::tuple_cat(detail::unless_row_id(column)...); },
      columns);
}

template <const auto& Decl, auto... Members>
class Select {
 public:
  using Row = typename std::remove_cvref_t<decltype(Decl)>::Row;
  static constexpr auto kColumns = [] {
    if constexpr (sizeof...(Members) == 0)
      return stored_columns(Decl.columns);
    else
      return std::tuple{detail::column_of<Decl, Members>()...};
  }();

  // `from` replaces the declaration's FROM clause where it is only known at
  // run time (the same projection over each of several tables).
  explicit Select(sql::Database& db, std::string_view tail = {}, std::string_view from = Decl.from)
      : statement_(db, sql(from, tail)) {}

  // For binding the tail's parameters (?1, ?2, ...) and re-running with reset().
  sql::Statement& statement() { return statement_; }
  void reset() { statement_.reset(); }

  // Reads the next row's selected columns into `row`; false when there is none.
  bool next(Row& row) {
    if (!statement_.step()) return false;
    for_each_column(kColumns, [&](const auto& column, int position) {
      using Value = typename std::remove_cvref_t<decltype(column)>::Value;
      column.ref(row) = Codec<Value>::read(statement_, position, Decl.name, column.name);
    });
    return true;
  }

  static std::string sql(std::string_view from, std::string_view tail) {
    std::string text = "SELECT ";
    for_each_column(kColumns, [&](const auto& column, int position) {
      if (position) text += ", ";
      text += column.name;
    });
    text += " FROM ";
    text += from;
    if (!tail.empty()) (text += ' ') += tail;
    return text;
  }

 private:
  sql::Statement statement_;
};

// Calls fn(const Row&) for each row; one Row is reused, so members outside
// the projection keep their defaults.
template <const auto& Decl, auto... Members, class Fn>
void for_each(sql::Database& db, std::string_view tail, Fn&& fn) {
  Select<Decl, Members...> select(db, tail);
  typename Select<Decl, Members...>::Row row{};
  while (select.next(row)) fn(std::as_const(row));
}

template <const auto& Decl, auto... Members>
auto read_all(sql::Database& db, std::string_view tail = {}) {
  using Row = typename Select<Decl, Members...>::Row;
  std::vector<Row> rows;
  for_each<Decl, Members...>(db, tail, [&](const Row& row) { rows.push_back(row); });
  return rows;
}

// The first row, if any.
template <const auto& Decl, auto... Members>
auto read_one(sql::Database& db, std::string_view tail = {}) {
  Select<Decl, Members...> select(db, tail);
  typename Select<Decl, Members...>::Row row{};
  return select.next(row) ? std::optional(row) : std::nullopt;
}

}  // namespace parity::profiler::schema
