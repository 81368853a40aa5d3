// What every rendering of a Document table shares: which columns are
// right-aligned, and the rows as text and HTML show them (names shortened).
#pragma once

#include <string>
#include <vector>

#include "parity/analyzer/report/document.hpp"

namespace parity::analyzer {

// The column's Table::numeric flag; by default all but the first column.
bool is_numeric(const Table& table, std::size_t column);
// The rows with every Table::names column shortened (name_elision.hpp).
std::vector<std::vector<std::string>> shortened_rows(const Table& table);

}  // namespace parity::analyzer
