#include "mindspore/mindspore_step_trace.hpp"

#include <limits>

#include "parity/core/error.hpp"

namespace parity::importers::trace {
namespace {

constexpr std::string_view kStartSuffix = "_start_point";

struct ReduceColumns {
  std::string op;
  std::int64_t stream = 0;
  std::size_t start = 0, end = 0;
};

// "stream_<s>_<i>_<op>_start_point" with its "..._end_point": the reduces the
// header names. A name that does not parse is not a reduce column.
std::vector<ReduceColumns> reduce_columns(const CsvTable& table) {
  std::vector<ReduceColumns> columns;
  for (std::size_t i = 0; i < table.header.size(); ++i) {
    const std::string& name = table.header[i];
    if (!name.starts_with("stream_") || !name.ends_with(kStartSuffix)) continue;
    const std::string base = name.substr(0, name.size() - kStartSuffix.size());
    const std::size_t stream_end = base.find('_', 7);
    const std::size_t index_end =
        stream_end == std::string::npos ? std::string::npos : base.find('_', stream_end + 1);
    if (index_end == std::string::npos || !table.has_column(base + "_end_point")) continue;
    ReduceColumns reduce;
    reduce.op = base.substr(index_end + 1);
    try {
      reduce.stream = std::stoll(base.substr(7, stream_end - 7));
    } catch (const std::exception&) {
      continue;
    }
    reduce.start = i;
    reduce.end = table.column(base + "_end_point");
    columns.push_back(std::move(reduce));
  }
  return columns;
}

// A cell of ticks as ns; refused where the ns would not fit, or are negative.
std::int64_t ns_at(const CsvTable& table, const CsvRow& row, std::size_t column) {
  const std::int64_t ticks = table.integer(row, column);
  if (ticks < 0 || ticks > std::numeric_limits<std::int64_t>::max() / kStepTraceTickNs)
    throw Error("column \"" + table.header.at(column) + "\" holds " + std::to_string(ticks) +
                    ", not a time in 10 ns ticks",
                table.where + ", line " + std::to_string(row.line),
                "the file may be corrupt; MindSpore writes non-negative device times");
  return ticks * kStepTraceTickNs;
}

void check_order(const CsvTable& table, const CsvRow& row, const StepTraceStep& step) {
  const bool ordered = step.start_ns <= step.fp_ns && step.fp_ns <= step.end_ns &&
                       (!step.bp_ns || (step.fp_ns <= *step.bp_ns && *step.bp_ns <= step.end_ns));
  if (!ordered)
    throw Error("step " + std::to_string(step.step) +
                    " is out of order: start_point <= fp_point <= bp_point <= end_point fails",
                table.where + ", line " + std::to_string(row.line),
                "the file may be corrupt; MindSpore writes the points in that order");
}

}  // namespace

std::vector<StepTraceStep> parse_step_trace(const CsvTable& table) {
  const std::size_t step_column = table.column("step_num");
  const std::size_t start = table.column("start_point"), end = table.column("end_point");
  const std::size_t fp = table.column("fp_point");
  const bool training = table.has_column("bp_point");
  const std::size_t bp = training ? table.column("bp_point") : 0;
  const std::vector<ReduceColumns> reduces = reduce_columns(table);
  std::vector<StepTraceStep> steps;
  for (const CsvRow& row : table.rows) {
    if (row.cells[step_column] == "-") continue;  // the average of the steps
    StepTraceStep step;
    step.step = table.integer(row, step_column);
    step.start_ns = ns_at(table, row, start);
    step.end_ns = ns_at(table, row, end);
    step.fp_ns = ns_at(table, row, fp);
    if (training) step.bp_ns = ns_at(table, row, bp);
    check_order(table, row, step);
    for (const ReduceColumns& reduce : reduces) {
      const std::int64_t from = ns_at(table, row, reduce.start);
      const std::int64_t to = ns_at(table, row, reduce.end);
      if (from == 0 && to == 0) continue;  // the header is the union of the steps' reduces
      step.reduces.push_back({reduce.op, reduce.stream, from, std::max(from, to)});
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace parity::importers::trace
