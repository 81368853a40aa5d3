#include "mindspore/mindspore_step_trace.hpp"

#include <charconv>
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

// What follows "stream_<s>_" in a reduce column's name: "<i>_<op>", "<i>_parallel"
// (op not known) or, before MindSpore 0.7, "parallel_<i>". The op, empty
// where the name gives none.
std::string reduce_op(std::string_view rest) {
  if (rest.starts_with("parallel_")) return {};
  const std::size_t index_end = rest.find('_');
  if (index_end == std::string_view::npos) return {};
  const std::string_view op = rest.substr(index_end + 1);
  return op == "parallel" ? std::string() : std::string(op);
}

// "stream_<s>_..._start_point" with its "..._end_point": the reduces the
// header names. A name that does not parse is not a reduce column.
std::vector<ReduceColumns> reduce_columns(const CsvTable& table) {
  constexpr std::string_view kPrefix = "stream_";
  std::vector<ReduceColumns> columns;
  for (std::size_t i = 0; i < table.header.size(); ++i) {
    const std::string& name = table.header[i];
    if (!name.starts_with(kPrefix) || !name.ends_with(kStartSuffix)) continue;
    const std::string base = name.substr(0, name.size() - kStartSuffix.size());
    const std::size_t stream_end = base.find('_', kPrefix.size());
    if (stream_end == std::string::npos || !table.has_column(base + "_end_point")) continue;
    const std::string_view digits =
        std::string_view(base).substr(kPrefix.size(), stream_end - kPrefix.size());
    ReduceColumns reduce;
    const auto [end, error] =
        std::from_chars(digits.data(), digits.data() + digits.size(), reduce.stream);
    if (error != std::errc() || end != digits.data() + digits.size()) continue;
    reduce.op = reduce_op(std::string_view(base).substr(stream_end + 1));
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

StepTraceTable parse_step_trace(const CsvTable& table) {
  const std::size_t step_column = table.column("step_num");
  const std::size_t start = table.column("start_point"), end = table.column("end_point");
  const std::size_t fp = table.column("fp_point");
  const bool training = table.has_column("bp_point");
  const std::size_t bp = training ? table.column("bp_point") : 0;
  const std::vector<ReduceColumns> reduces = reduce_columns(table);
  StepTraceTable trace;
  for (const CsvRow& row : table.rows) {
    if (row.cells[step_column] == "-") continue;  // the average of the steps
    StepTraceStep step;
    step.step = table.integer(row, step_column);
    step.start_ns = ns_at(table, row, start);
    step.end_ns = ns_at(table, row, end);
    if (step.start_ns == 0 && step.end_ns == 0) {
      ++trace.rows_without_times;
      continue;
    }
    step.fp_ns = ns_at(table, row, fp);
    if (training) step.bp_ns = ns_at(table, row, bp);
    check_order(table, row, step);
    for (const ReduceColumns& reduce : reduces) {
      const std::int64_t from = ns_at(table, row, reduce.start);
      const std::int64_t to = ns_at(table, row, reduce.end);
      if (from == 0 && to == 0) continue;  // the header is the union of the steps' reduces
      step.reduces.push_back({reduce.op, reduce.stream, from, std::max(from, to)});
    }
    trace.steps.push_back(std::move(step));
  }
  return trace;
}

}  // namespace parity::importers::trace
