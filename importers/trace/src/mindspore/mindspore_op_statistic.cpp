#include "mindspore/mindspore_op_statistic.hpp"

namespace parity::importers::trace {

void cross_check_op_statistic(const CsvTable& table,
                              const std::map<std::string, std::int64_t>& timeline_counts,
                              TraceAssembly& assembly, ImportSummary& summary) {
  const std::size_t type = table.column("OP Type"), count = table.column("Count");
  const std::size_t total = table.column("Total Time(us)");
  std::string stats, differences;
  for (const CsvRow& row : table.rows) {
    const std::string& name = row.cells[type];
    const std::int64_t expected = table.integer(row, count);
    stats += name + " count=" + std::to_string(expected) + " total_us=" + row.cells[total] + "\n";
    const auto seen = timeline_counts.find(name);
    const std::int64_t on_timeline = seen == timeline_counts.end() ? 0 : seen->second;
    if (on_timeline != expected)
      differences += (differences.empty() ? "" : ", ") + name + " " + std::to_string(expected) +
                     " vs " + std::to_string(on_timeline);
  }
  assembly.set_meta("import.op_statistic", stats);
  summary.imported["op types cross-checked (op_statistic, kept in meta)"] += table.rows.size();
  if (!differences.empty())
    summary.notes.push_back(
        "op_statistic counts differ from the timeline's (op_statistic vs timeline: " + differences +
        "): MindSpore cuts the timeline at 20 MB, so its later ops are missing");
}

}  // namespace parity::importers::trace
