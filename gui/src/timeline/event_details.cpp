#include "parity/gui/timeline/event_details.hpp"

#include "parity/gui/timeline/timeline_layout.hpp"

namespace parity::gui {
namespace {

using profiler::sql::Statement;

QString text(const std::string& value) { return QString::fromStdString(value); }
QString number(std::int64_t value) { return QString::number(value); }

void add_range_details(const EventRow& row, std::size_t i, const Lane& lane,
                       profiler::TraceReader& reader, DetailLines& lines) {
  Statement query(reader.db(),
                  "SELECT category, arg, id FROM range WHERE track_id = ?1 AND start_ns = ?2 "
                  "AND depth = ?3 LIMIT 1");
  query.bind(1, static_cast<std::int64_t>(lane.track)).bind(2, row.starts[i]).bind(3, static_cast<std::int64_t>(row.depth));
  if (!query.step()) return;
  lines.emplace_back("Category", text(std::string(profiler::category_name(
                                     static_cast<profiler::Category>(query.column_int(0))))));
  if (!query.column_is_null(1)) lines.emplace_back("Argument", number(query.column_int(1)));
  lines.emplace_back("Depth", number(row.depth));
  lines.emplace_back("Range id", number(query.column_int(2)));
}

void add_gpu_details(const EventRow& row, std::size_t i, const Lane& lane,
                     profiler::TraceReader& reader, DetailLines& lines) {
  Statement query(reader.db(),
                  "SELECT a.kind, a.correlation_id, a.bytes, a.copy_kind, c.grid_x, c.grid_y, "
                  "c.grid_z, c.block_x, c.block_y, c.block_z, c.shared_bytes, c.registers "
                  "FROM gpu_activity a LEFT JOIN launch_config c ON c.id = a.launch_id "
                  "WHERE a.track_id = ?1 AND a.start_ns = ?2 LIMIT 1");
  query.bind(1, static_cast<std::int64_t>(lane.track)).bind(2, row.starts[i]);
  if (!query.step()) return;
  lines.emplace_back("Kind", text(std::string(profiler::gpu_activity_kind_name(
                                 static_cast<profiler::GpuActivityKind>(query.column_int(0))))));
  lines.emplace_back("Correlation id", number(query.column_int(1)));
  if (!query.column_is_null(2)) lines.emplace_back("Bytes", number(query.column_int(2)));
  if (!query.column_is_null(4)) {
    lines.emplace_back("Grid", QStringLiteral("%1 × %2 × %3")
                                   .arg(query.column_int(4))
                                   .arg(query.column_int(5))
                                   .arg(query.column_int(6)));
    lines.emplace_back("Block", QStringLiteral("%1 × %2 × %3")
                                    .arg(query.column_int(7))
                                    .arg(query.column_int(8))
                                    .arg(query.column_int(9)));
    lines.emplace_back("Shared memory", number(query.column_int(10)) + QStringLiteral(" B"));
    lines.emplace_back("Registers", number(query.column_int(11)));
  }
}

void add_api_details(const EventRow& row, std::size_t i, DetailLines& lines) {
  lines.emplace_back("Correlation id", number(row.correlations[i]));
}

void add_collective_details(const EventRow& row, std::size_t i, const Lane& lane,
                            profiler::TraceReader& reader, DetailLines& lines) {
  Statement query(reader.db(),
                  "SELECT bytes, dtype, bucket, first_param, last_param, step FROM collective "
                  "WHERE track_id = ?1 AND start_ns = ?2 LIMIT 1");
  query.bind(1, static_cast<std::int64_t>(lane.track)).bind(2, row.starts[i]);
  if (!query.step()) return;
  lines.emplace_back("Bytes", number(query.column_int(0)));
  lines.emplace_back("Data type", text(query.column_text(1)));
  lines.emplace_back("Bucket", number(query.column_int(2)));
  lines.emplace_back("Parameters", QStringLiteral("%1 – %2").arg(query.column_int(3)).arg(query.column_int(4)));
  lines.emplace_back("Step", number(query.column_int(5)));
}

}  // namespace

DetailLines describe_event(const TimelineData& data, const EventRef& event,
                           profiler::TraceReader& reader) {
  DetailLines lines;
  if (event.lane < 0 || static_cast<std::size_t>(event.lane) >= data.lanes.size()) return lines;
  const Lane& lane = data.lanes[static_cast<std::size_t>(event.lane)];
  if (event.row < 0 || static_cast<std::size_t>(event.row) >= lane.rows.size()) return lines;
  const EventRow& row = lane.rows[static_cast<std::size_t>(event.row)];
  if (event.index < 0 || static_cast<std::size_t>(event.index) >= row.size()) return lines;
  const auto i = static_cast<std::size_t>(event.index);
  const double origin = static_cast<double>(data.extent.start_ns);
  lines.emplace_back("Name", text(data.name(row.names[i])));
  lines.emplace_back("Lane", text(lane.title) + QStringLiteral(" · ") + text(row.title));
  lines.emplace_back("Start", format_duration(static_cast<double>(row.starts[i]) - origin));
  lines.emplace_back("End", format_duration(static_cast<double>(row.ends[i]) - origin));
  lines.emplace_back("Duration", format_duration(static_cast<double>(row.ends[i] - row.starts[i])));
  switch (row.source) {
    case EventSource::kRange: add_range_details(row, i, lane, reader, lines); break;
    case EventSource::kGpuActivity: add_gpu_details(row, i, lane, reader, lines); break;
    case EventSource::kApiCall: add_api_details(row, i, lines); break;
    case EventSource::kCollective: add_collective_details(row, i, lane, reader, lines); break;
    case EventSource::kInstant: break;
  }
  if (const auto partner = data.correlated(event)) {
    const Lane& other = data.lanes[static_cast<std::size_t>(partner->lane)];
    const EventRow& other_row = other.rows[static_cast<std::size_t>(partner->row)];
    const auto j = static_cast<std::size_t>(partner->index);
    const QString role = row.source == EventSource::kApiCall ? QStringLiteral("Launched")
                                                             : QStringLiteral("Launched by");
    lines.emplace_back(role, text(data.name(other_row.names[j])) + QStringLiteral(" on ") +
                                 text(other.title) + QStringLiteral(" at ") +
                                 format_duration(static_cast<double>(other_row.starts[j]) - origin));
    if (row.source == EventSource::kGpuActivity)
      lines.emplace_back("Launch latency",
                         format_duration(static_cast<double>(row.starts[i] - other_row.starts[j])));
  }
  return lines;
}

}  // namespace parity::gui
