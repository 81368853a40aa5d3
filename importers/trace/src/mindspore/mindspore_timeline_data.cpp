#include "mindspore/mindspore_timeline_data.hpp"

#include "mindspore/mindspore_csv.hpp"

namespace parity::importers::trace {

std::optional<TimelineAnchor> read_timeline_anchor(const std::filesystem::path& path) {
  constexpr int kMsDigits = 6;  // ms -> ns
  const CsvTable table = read_csv(path);
  const std::size_t name = table.column("op_name"), stream = table.column("stream_id");
  const std::size_t start = table.column("start_time(ms)");
  std::optional<TimelineAnchor> earliest;
  for (const CsvRow& row : table.rows) {
    const std::int64_t start_ns = table.decimal_ns(row, start, kMsDigits);
    if (earliest && earliest->start_ns <= start_ns) continue;
    const std::string& full_name = row.cells[name];
    earliest = TimelineAnchor{full_name.substr(full_name.rfind('/') + 1),
                              table.integer(row, stream), start_ns};
  }
  return earliest;
}

}  // namespace parity::importers::trace
