#include "ascend/ascend_step_trace_time.hpp"

namespace parity::importers::trace {

void keep_step_trace_time(const CsvTable& table, TraceAssembly& assembly, ImportSummary& summary) {
  const std::size_t step = table.column("Step");
  std::string kept;
  for (const CsvRow& row : table.rows) {
    kept += "step " + row.cells[step] + ":";
    for (std::size_t i = 0; i < table.header.size(); ++i)
      if (i != step) kept += " " + table.header[i] + "=" + row.cells[i];
    kept += "\n";
  }
  assembly.set_meta("import.step_trace_time", kept);
  summary.imported["per-step time splits (step_trace_time.csv, kept in meta, us)"] +=
      table.rows.size();
}

}  // namespace parity::importers::trace
