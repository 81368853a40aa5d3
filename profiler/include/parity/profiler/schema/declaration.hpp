// A declared table or projection: the row struct it fills, the name used in
// error messages, what it selects FROM, and its columns in order. The trace's
// tables are declared once in tables.hpp; a reader that needs a join or a
// computed value declares a small projection of its own the same way.
#pragma once

#include <string_view>
#include <tuple>

#include "parity/profiler/schema/column.hpp"

namespace parity::profiler::schema {

template <class R, class... Columns>
struct Declaration {
  using Row = R;
  std::string_view name;  // the table, in messages ("range")
  std::string_view from;  // FROM clause: the table, or a join in a projection
  std::tuple<Columns...> columns;

  static constexpr std::size_t kColumnCount = sizeof...(Columns);
};

// A table of the schema: columns named as in its CREATE TABLE.
template <class Row, class... Columns>
constexpr auto table(std::string_view name, Columns... columns) {
  return Declaration<Row, Columns...>{name, name, {columns...}};
}

// A projection: `columns` are SQL expressions over `from`.
template <class Row, class... Columns>
constexpr auto projection(std::string_view name, std::string_view from, Columns... columns) {
  return Declaration<Row, Columns...>{name, from, {columns...}};
}

// Calls fn(column, position) for each column of a tuple, in order.
template <class Tuple, class Fn>
constexpr void for_each_column(const Tuple& columns, Fn&& fn) {
  std::apply(
      [&](const auto&... column) {
        int position = 0;
        (fn(column, position++), ...);
      },
      columns);
}

}  // namespace parity::profiler::schema
