// Fuzzes the readers of MindSpore's profiler text files: the first byte picks
// one ('s' the step trace CSV, 'q' the data-queue trace, anything else the
// bare CSV table), the rest is the file. Any input is either read, with the
// invariants below holding, or refused with parity::Error. Anything else
// (another exception, a crash, a sanitizer report) is a finding.
#include <cstdlib>
#include <string>
#include <string_view>

#include "mindspore/mindspore_csv.hpp"
#include "mindspore/mindspore_queue_trace.hpp"
#include "mindspore/mindspore_step_trace.hpp"
#include "parity/core/error.hpp"

namespace {

using namespace parity::importers::trace;

void read_step_trace(std::string_view text) {
  for (const StepTraceStep& step : parse_step_trace(parse_csv(text, "fuzz.csv"))) {
    if (step.fp_ns < step.start_ns || step.end_ns < step.fp_ns) std::abort();
    if (step.bp_ns && (*step.bp_ns < step.fp_ns || step.end_ns < *step.bp_ns)) std::abort();
    for (const StepTraceReduce& reduce : step.reduces)
      if (reduce.end_ns < reduce.start_ns) std::abort();
  }
}

void read_table(std::string_view text) {
  const CsvTable table = parse_csv(text, "fuzz.csv");
  for (const CsvRow& row : table.rows)
    if (row.cells.size() != table.header.size() || row.line < 2) std::abort();
}

void read_queue_trace(std::string_view text) {
  for (const QueueRecord& record : parse_queue_trace(text, "fuzz.txt"))
    if (record.type != QueueRecordType::kTime && record.type != QueueRecordType::kConnector)
      std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0]) {
      case 's':
        read_step_trace(text);
        break;
      case 'q':
        read_queue_trace(text);
        break;
      default:
        read_table(text);
    }
  } catch (const parity::Error&) {
    // Refused: the contract for input that is not such a file.
  }
  return 0;
}
