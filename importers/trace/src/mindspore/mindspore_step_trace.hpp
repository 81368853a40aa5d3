// MindSpore's step trace, step_trace_raw_<rank>_detail_time.csv: per step its
// start and end, where the forward pass starts (fp_point) and the backward
// pass ends (bp_point), and the reduce (AllReduce) operations of the tail,
// one column triple per reduce (stream_<s>_<i>_<op>, ..._start_point,
// ..._end_point; MindSpore 0.5-0.6 wrote stream_<s>_parallel_<i>, with no op,
// and later versions stream_<s>_<i>_parallel where the op was not known). Times are in the step
// trace's ticks of 10 ns (MindSpore's GPU parser drops the nanoseconds' last digit; Ascend's
// counter runs at 100 MHz), read here as nanoseconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mindspore/mindspore_csv.hpp"

namespace parity::importers::trace {

inline constexpr std::int64_t kStepTraceTickNs = 10;

struct StepTraceReduce {
  std::string op;  // "AllReduce-op3"; empty where the column names none
  std::int64_t stream = 0;
  std::int64_t start_ns = 0, end_ns = 0;
};

struct StepTraceStep {
  std::int64_t step = 0;
  std::int64_t start_ns = 0, end_ns = 0;
  std::int64_t fp_ns = 0;
  std::optional<std::int64_t> bp_ns;  // absent in inference mode (no bp_point column)
  std::vector<StepTraceReduce> reduces;
};

struct StepTraceTable {
  std::vector<StepTraceStep> steps;
  // Rows whose start_point and end_point are 0: the row MindSpore 1.0 writes
  // in place of the average (step_num 0) when the trace has a single step.
  std::size_t rows_without_times = 0;
};

// The steps of the table, the average row (step_num "-") left out. Throws
// parity::Error naming the file and line for a missing column, a cell that is
// not a number, or a step whose points are out of order.
StepTraceTable parse_step_trace(const CsvTable& table);

}  // namespace parity::importers::trace
