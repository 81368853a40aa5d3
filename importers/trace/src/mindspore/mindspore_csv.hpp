// The comma-separated tables MindSpore's profiler writes (step_trace_raw_*,
// op_statistic_*, minddata_pipeline_raw_*): a header line, then rows of as
// many cells, a cell quoted where it holds commas ("[3, 0, 2]"). Every row
// keeps its line number, so that a bad cell is reported where it is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace parity::importers::trace {

struct CsvRow {
  std::size_t line = 0;  // 1-based, in the file
  std::vector<std::string> cells;
};

struct CsvTable {
  std::string where;  // the file, for errors
  std::vector<std::string> header;
  std::vector<CsvRow> rows;

  // The index of a header cell; throws parity::Error naming the file, line 1
  // and the column when the header has none of that name.
  std::size_t column(std::string_view name) const;
  bool has_column(std::string_view name) const;
  // A cell as a whole number; throws naming the file, the line and the column.
  std::int64_t integer(const CsvRow& row, std::size_t column) const;
};

// Throws parity::Error naming `where` and the line for text that is not such
// a table: no header, a row with more or fewer cells than the header (a row
// cut short), an unclosed quote.
CsvTable parse_csv(std::string_view text, std::string where);
CsvTable read_csv(const std::filesystem::path& path);

// Calls `line` with each line's number (1-based) and text, without its line
// end (\n or \r\n); blank lines are left out.
void for_each_line(std::string_view text,
                   const std::function<void(std::size_t number, std::string_view line)>& line);

// The whole of a small text file; throws parity::Error when it cannot be read.
std::string read_text_file(const std::filesystem::path& path);

}  // namespace parity::importers::trace
