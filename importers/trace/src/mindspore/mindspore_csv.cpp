#include "mindspore/mindspore_csv.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "chrome/chrome_event.hpp"
#include "parity/core/error.hpp"

namespace parity::importers::trace {
namespace {

constexpr const char* kHint =
    "is it a file of MindSpore's profiler (Profiler.analyse()), whole and not cut short?";

std::string at_line(const std::string& where, std::size_t line) {
  return where + ", line " + std::to_string(line);
}

// Without the spaces and tabs around it: CANN ends some cells with a tab
// ("1736408883704643.212\t"), MindSpore's older text tables put a space
// after each comma ("op_name, stream_id").
std::string_view trimmed(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// One line's cells; `line` only for errors. A quoted cell may hold commas and
// doubled quotes ("").
std::vector<std::string> split_cells(std::string_view text, const std::string& where,
                                     std::size_t line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted && c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
      cells.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  if (quoted)
    throw Error("a quoted cell is not closed before the end of the line", at_line(where, line),
                kHint);
  return cells;
}

}  // namespace

std::size_t CsvTable::column(std::string_view name) const {
  const auto it = std::find(header.begin(), header.end(), name);
  if (it == header.end())
    throw Error("the header has no column \"" + std::string(name) + "\"", at_line(where, 1),
                "a MindSpore profiler file of another version or another kind? see "
                "docs/formats/mindspore-profiler.md for the columns Parity reads");
  return static_cast<std::size_t>(it - header.begin());
}

bool CsvTable::has_column(std::string_view name) const {
  return std::find(header.begin(), header.end(), name) != header.end();
}

std::int64_t CsvTable::integer(const CsvRow& row, std::size_t column) const {
  const std::string_view cell = trimmed(row.cells.at(column));
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (error != std::errc() || end != cell.data() + cell.size() || cell.empty())
    throw Error("column \"" + header.at(column) + "\" holds \"" + std::string(cell) +
                    "\", not a whole number",
                at_line(where, row.line), kHint);
  return value;
}

std::int64_t CsvTable::decimal_ns(const CsvRow& row, std::size_t column, int digits_to_ns) const {
  const std::string_view cell = trimmed(row.cells.at(column));
  const auto ns = decimal_text_to_ns(cell, digits_to_ns);
  if (!ns)
    throw Error("column \"" + header.at(column) + "\" holds \"" + std::string(cell) +
                    "\", not a non-negative decimal time",
                at_line(where, row.line), kHint);
  return *ns;
}

std::optional<std::int64_t> decimal_text_to_ns(std::string_view text, int digits_to_ns) {
  if (text.empty() || text.front() == '-' || digits_to_ns < 3) return std::nullopt;
  if (text.find_first_of("eE") != std::string_view::npos) {  // "5e-05": rare, a double
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    const double ns = value * std::pow(10.0, digits_to_ns);
    if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(ns) ||
        ns >= 9.2e18)
      return std::nullopt;
    return static_cast<std::int64_t>(std::llround(ns));
  }
  // Moving the point right by the unit's extra digits turns ms into us, which
  // microseconds_text_to_ns reads exactly.
  std::string micros(text);
  std::size_t dot = micros.find('.');
  if (dot == std::string::npos) {
    dot = micros.size();
    micros += '.';
  }
  for (int i = 3; i < digits_to_ns; ++i, ++dot) {
    if (dot + 1 == micros.size()) micros += '0';
    std::swap(micros[dot], micros[dot + 1]);
  }
  return microseconds_text_to_ns(micros);
}

void for_each_line(std::string_view text,
                   const std::function<void(std::size_t number, std::string_view line)>& line) {
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    std::string_view content = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    ++number;
    if (!content.empty() && content.back() == '\r') content.remove_suffix(1);
    if (content.find_first_not_of(" \t") != std::string_view::npos) line(number, content);
  }
}

CsvTable parse_csv(std::string_view text, std::string where) {
  CsvTable table;
  table.where = std::move(where);
  for_each_line(text, [&](std::size_t line, std::string_view content) {
    std::vector<std::string> cells = split_cells(content, table.where, line);
    if (table.header.empty()) {
      for (std::string& cell : cells) cell = std::string(trimmed(cell));
      table.header = std::move(cells);
      return;
    }
    if (cells.size() != table.header.size())
      throw Error("the row has " + std::to_string(cells.size()) + " cells, the header " +
                      std::to_string(table.header.size()),
                  at_line(table.where, line),
                  "a row cut short or a header of another file; " + std::string(kHint));
    table.rows.push_back({line, std::move(cells)});
  });
  if (table.header.empty()) throw Error("the file is empty: no header line", table.where, kHint);
  return table;
}

std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error("cannot open the file", path.string(), "check that it exists and is readable");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

CsvTable read_csv(const std::filesystem::path& path) {
  return parse_csv(read_text_file(path), path.string());
}

}  // namespace parity::importers::trace
