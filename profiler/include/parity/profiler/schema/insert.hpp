// The writer's INSERT statements, generated from a table's declaration: the
// stored columns in order (a RowIdColumn is left to SQLite), and one binder.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "parity/profiler/schema/select.hpp"

namespace parity::profiler::schema {

template <const auto& Table>
inline constexpr auto kStoredColumns = stored_columns(Table.columns);

template <const auto& Table>
inline constexpr int kBoundColumns =
    static_cast<int>(std::tuple_size_v<std::remove_cvref_t<decltype(kStoredColumns<Table>)>>);

// "INSERT INTO range(track_id, ...) VALUES (?, ...)" with `rows` groups of placeholders.
template <const auto& Table>
std::string insert_sql(std::string_view verb = "INSERT", std::size_t rows = 1) {
  std::string text(verb);
  ((text += " INTO ") += Table.name) += '(';
  std::string group = "(";
  for_each_column(kStoredColumns<Table>, [&](const auto& column, int position) {
    text += position ? ", " : "";
    text += column.name;
    group += position ? ", ?" : "?";
  });
  text += ") VALUES ";
  group += ')';
  for (std::size_t i = 0; i < rows; ++i) (text += i ? ", " : "") += group;
  return text;
}

// Binds `row` to parameters first_parameter, first_parameter + 1, ...
template <const auto& Table>
void bind_row(sql::Statement& statement, int first_parameter,
              const typename std::remove_cvref_t<decltype(Table)>::Row& row) {
  for_each_column(kStoredColumns<Table>, [&](const auto& column, int position) {
    using Value = typename std::remove_cvref_t<decltype(column)>::Value;
    Codec<Value>::bind(statement, first_parameter + position, column.get(row));
  });
}

}  // namespace parity::profiler::schema
