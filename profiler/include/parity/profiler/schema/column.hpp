// One column of a declared table or projection: its SQL text (a column name,
// or an expression in a projection) and the row member it maps to. Reading a
// value checks it fits the member's type: an integer out of range of a narrow
// field, or a value no enumerator names, is a corrupt row (parity::Error
// naming table and column), never a silent cast.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "parity/core/error.hpp"
#include "parity/profiler/sqlite.hpp"
#include "parity/profiler/trace_schema.hpp"

namespace parity::profiler::schema {

template <class T>
struct MemberTraits;
template <class T, class Owner>
struct MemberTraits<T Owner::*> {
  using Value = T;
};

// A column stored in member `member` of Row (a member of a base of Row too).
template <class Row, class T>
struct Column {
  using Value = T;
  std::string_view name;
  T Row::*member;

  const T& get(const Row& row) const { return row.*member; }
  T& ref(Row& row) const { return row.*member; }
};

// A column stored in one element of an array member (launch_config.grid_x).
template <class Row, class T, std::size_t N>
struct ElementColumn {
  using Value = T;
  std::string_view name;
  std::array<T, N> Row::*member;
  std::size_t element;

  const T& get(const Row& row) const { return (row.*member)[element]; }
  T& ref(Row& row) const { return (row.*member)[element]; }
};

// A column the database fills (an INTEGER PRIMARY KEY left to SQLite): inserts
// leave it out and the row struct has no member for it.
struct RowIdColumn {
  std::string_view name;
};

template <class Row, class M>
constexpr auto column(std::string_view name, M member) {
  using T = typename MemberTraits<M>::Value;
  return Column<Row, T>{name, member};
}

template <class Row, class T, std::size_t N, class Owner>
constexpr auto element(std::string_view name, std::array<T, N> Owner::*member, std::size_t index) {
  return ElementColumn<Row, T, N>{name, member, index};
}

constexpr RowIdColumn row_id(std::string_view name) { return {name}; }

template <class C>
inline constexpr bool kIsRowId = std::is_same_v<C, RowIdColumn>;

[[noreturn]] void fail_corrupt(const sql::Statement& statement, std::string_view table,
                               std::string_view column, std::string_view why);

template <class T>
struct Codec;

template <>
struct Codec<std::int64_t> {
  static std::int64_t read(const sql::Statement& s, int i, std::string_view, std::string_view) {
    return s.column_int(i);
  }
  static void bind(sql::Statement& s, int p, std::int64_t v) { s.bind(p, v); }
};

template <>
struct Codec<double> {
  static double read(const sql::Statement& s, int i, std::string_view, std::string_view) {
    return s.column_double(i);
  }
  static void bind(sql::Statement& s, int p, double v) { s.bind(p, v); }
};

template <>
struct Codec<std::string> {
  static std::string read(const sql::Statement& s, int i, std::string_view, std::string_view) {
    return s.column_text(i);
  }
  static void bind(sql::Statement& s, int p, const std::string& v) { s.bind(p, v); }
};

// Narrow unsigned integers (ids, depths, sizes) and booleans (EXISTS).
template <class T>
requires(std::is_integral_v<T> && !std::is_same_v<T, std::int64_t>) struct Codec<T> {
  static T read(const sql::Statement& s, int i, std::string_view table, std::string_view column) {
    const std::int64_t v = s.column_int(i);
    if (v < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
        static_cast<std::uint64_t>(v) > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
      fail_corrupt(s, table, column, "value " + std::to_string(v) + " is out of range");
    return static_cast<T>(v);
  }
  static void bind(sql::Statement& s, int p, T v) { s.bind(p, static_cast<std::int64_t>(v)); }
};

// Enumerations: the stored integer must name an enumerator (is_known()).
template <class T>
requires std::is_enum_v<T>
struct Codec<T> {
  static T read(const sql::Statement& s, int i, std::string_view table, std::string_view column) {
    const std::int64_t v = s.column_int(i);
    using U = std::underlying_type_t<T>;
    if (v < std::numeric_limits<U>::min() || v > std::numeric_limits<U>::max() ||
        !is_known(static_cast<T>(v)))
      fail_corrupt(s, table, column, "value " + std::to_string(v) + " is not a known enumerator");
    return static_cast<T>(v);
  }
  static void bind(sql::Statement& s, int p, T v) { s.bind(p, static_cast<std::int64_t>(v)); }
};

template <class T>
struct Codec<std::optional<T>> {
  static std::optional<T> read(const sql::Statement& s, int i, std::string_view table,
                               std::string_view column) {
    if (s.column_is_null(i)) return std::nullopt;
    return Codec<T>::read(s, i, table, column);
  }
  static void bind(sql::Statement& s, int p, const std::optional<T>& v) {
    if (v)
      Codec<T>::bind(s, p, *v);
    else
      s.bind_null(p);
  }
};

}  // namespace parity::profiler::schema
