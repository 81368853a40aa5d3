#include "parity/gui/timeline/event_details.hpp"

#include "parity/gui/timeline/timeline_layout.hpp"
#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"

namespace parity::gui {
namespace {

namespace schema = profiler::schema;
using profiler::CollectiveRow;
using profiler::LaunchConfigRow;
using profiler::RangeRow;
using profiler::StoredGpuActivityRow;

QString text(const std::string& value) { return QString::fromStdString(value); }
QString number(std::int64_t value) { return QString::number(value); }

void add_range_details(const EventRow& row, std::size_t i, const Lane& lane,
                       profiler::TraceReader& reader, DetailLines& lines) {
  schema::Select<schema::kTable<RangeRow>, &RangeRow::category, &RangeRow::arg, &RangeRow::id>
      query(reader.db(), "WHERE track_id = ?1 AND start_ns = ?2 AND depth = ?3 LIMIT 1");
  query.statement()
      .bind(1, static_cast<std::int64_t>(lane.track))
      .bind(2, row.starts[i])
      .bind(3, static_cast<std::int64_t>(row.depth));
  RangeRow range;
  if (!query.next(range)) return;
  lines.emplace_back("Category", text(std::string(profiler::category_name(range.category))));
  if (range.arg) lines.emplace_back("Argument", number(*range.arg));
  lines.emplace_back("Depth", number(row.depth));
  lines.emplace_back("Range id", number(range.id));
}

void add_launch_details(std::int64_t launch_id, profiler::TraceReader& reader, DetailLines& lines) {
  schema::Select<schema::kTable<LaunchConfigRow>> query(reader.db(), "WHERE id = ?1");
  query.statement().bind(1, launch_id);
  LaunchConfigRow launch;
  if (!query.next(launch)) return;
  lines.emplace_back(
      "Grid",
      QStringLiteral("%1 × %2 × %3").arg(launch.grid[0]).arg(launch.grid[1]).arg(launch.grid[2]));
  lines.emplace_back("Block", QStringLiteral("%1 × %2 × %3")
                                  .arg(launch.block[0])
                                  .arg(launch.block[1])
                                  .arg(launch.block[2]));
  lines.emplace_back("Shared memory", number(launch.shared_bytes) + QStringLiteral(" B"));
  lines.emplace_back("Registers", number(launch.registers));
}

void add_gpu_details(const EventRow& row, std::size_t i, const Lane& lane,
                     profiler::TraceReader& reader, DetailLines& lines) {
  using Row = StoredGpuActivityRow;
  schema::Select<schema::kTable<Row>, &Row::kind, &Row::correlation_id, &Row::bytes,
                 &Row::launch_id>
      query(reader.db(), "WHERE track_id = ?1 AND start_ns = ?2 LIMIT 1");
  query.statement().bind(1, static_cast<std::int64_t>(lane.track)).bind(2, row.starts[i]);
  Row work;
  if (!query.next(work)) return;
  lines.emplace_back("Kind", text(std::string(profiler::gpu_activity_kind_name(work.kind))));
  lines.emplace_back("Correlation id", number(work.correlation_id.value_or(0)));
  if (work.bytes) lines.emplace_back("Bytes", number(*work.bytes));
  if (work.launch_id) add_launch_details(*work.launch_id, reader, lines);
}

void add_api_details(const EventRow& row, std::size_t i, DetailLines& lines) {
  lines.emplace_back("Correlation id", number(row.correlations[i]));
}

void add_collective_details(const EventRow& row, std::size_t i, const Lane& lane,
                            profiler::TraceReader& reader, DetailLines& lines) {
  schema::Select<schema::kTable<CollectiveRow>, &CollectiveRow::bytes, &CollectiveRow::dtype,
                 &CollectiveRow::bucket, &CollectiveRow::first_param, &CollectiveRow::last_param,
                 &CollectiveRow::step>
      query(reader.db(), "WHERE track_id = ?1 AND start_ns = ?2 LIMIT 1");
  query.statement().bind(1, static_cast<std::int64_t>(lane.track)).bind(2, row.starts[i]);
  CollectiveRow collective;
  if (!query.next(collective)) return;
  lines.emplace_back("Bytes", number(collective.bytes));
  lines.emplace_back("Data type", text(collective.dtype));
  lines.emplace_back("Bucket", number(collective.bucket));
  lines.emplace_back(
      "Parameters",
      QStringLiteral("%1 – %2").arg(collective.first_param).arg(collective.last_param));
  lines.emplace_back("Step", number(collective.step));
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
    case EventSource::kRange:
      add_range_details(row, i, lane, reader, lines);
      break;
    case EventSource::kGpuActivity:
      add_gpu_details(row, i, lane, reader, lines);
      break;
    case EventSource::kApiCall:
      add_api_details(row, i, lines);
      break;
    case EventSource::kCollective:
      add_collective_details(row, i, lane, reader, lines);
      break;
    case EventSource::kInstant:
      break;
  }
  if (const auto partner = data.correlated(event)) {
    const Lane& other = data.lanes[static_cast<std::size_t>(partner->lane)];
    const EventRow& other_row = other.rows[static_cast<std::size_t>(partner->row)];
    const auto j = static_cast<std::size_t>(partner->index);
    const QString role = row.source == EventSource::kApiCall ? QStringLiteral("Launched")
                                                             : QStringLiteral("Launched by");
    lines.emplace_back(
        role, text(data.name(other_row.names[j])) + QStringLiteral(" on ") + text(other.title) +
                  QStringLiteral(" at ") +
                  format_duration(static_cast<double>(other_row.starts[j]) - origin));
    if (row.source == EventSource::kGpuActivity)
      lines.emplace_back("Launch latency",
                         format_duration(static_cast<double>(row.starts[i] - other_row.starts[j])));
  }
  return lines;
}

}  // namespace parity::gui
