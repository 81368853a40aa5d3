// The comma-separated tables MindSpore's profiler writes (step_trace_raw_*,
// op_statistic_*, minddata_pipeline_raw_*, output_timeline_data_*, and
// CANN's kernel_details.csv and step_trace_time.csv in ASCEND_PROFILER_OUTPUT/):
// a header line, then rows of as many cells, a cell quoted where it holds
// commas ("[3, 0, 2]"). Header names and numbers are read without the spaces
// and tabs around them. Every row keeps its line number, so that a bad cell
// is reported where it is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
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
  // A decimal time cell in a unit of 10^digits_to_ns ns (3: us, 6: ms) as
  // exact ns; throws like integer().
  std::int64_t decimal_ns(const CsvRow& row, std::size_t column, int digits_to_ns) const;
};

// "154907895.95956" ms (digits_to_ns 6) -> 154907895959560 ns, exact;
// nullopt for text that is not a plain non-negative decimal.
std::optional<std::int64_t> decimal_text_to_ns(std::string_view text, int digits_to_ns);

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
