#include "mindspore/mindspore_op_statistic.hpp"

namespace parity::importers::trace {

void cross_check_op_statistic(const CsvTable& table,
                              const std::map<std::string, std::int64_t>& counts,
                              std::string_view counted_by, std::string_view why_short,
                              TraceAssembly& assembly, ImportSummary& summary) {
  const std::size_t type = table.column("OP Type"), count = table.column("Count");
  const std::size_t total = table.column("Total Time(us)");
  std::string stats, differences;
  std::map<std::string, std::int64_t> expected;  // per type, over its core types' rows
  for (const CsvRow& row : table.rows) {
    const std::string& name = row.cells[type];
    expected[name] += table.integer(row, count);
    stats += name + " count=" + row.cells[count] + " total_us=" + row.cells[total] + "\n";
  }
  for (const auto& [name, n] : expected) {
    const auto seen = counts.find(name);
    const std::int64_t found = seen == counts.end() ? 0 : seen->second;
    if (found != n)
      differences += (differences.empty() ? "" : ", ") + name + " " + std::to_string(n) + " vs " +
                     std::to_string(found);
  }
  assembly.set_meta("import.op_statistic", stats);
  summary.imported["op types cross-checked (op_statistic, kept in meta)"] += expected.size();
  if (!differences.empty())
    summary.notes.push_back("op_statistic counts differ from " + std::string(counted_by) +
                            "'s (op_statistic vs " + std::string(counted_by) + ": " + differences +
                            "): " + std::string(why_short));
}

}  // namespace parity::importers::trace
