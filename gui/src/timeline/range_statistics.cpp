#include "parity/gui/timeline/range_statistics.hpp"

#include <algorithm>
#include <map>

#include "parity/analyzer/profile/distribution.hpp"

namespace parity::gui {
namespace {

const char* kind_of(EventSource source) {
  switch (source) {
    case EventSource::kRange: return "range";
    case EventSource::kApiCall: return "CUDA API";
    case EventSource::kGpuActivity: return "kernel";
    case EventSource::kCollective: return "collective";
    case EventSource::kInstant: return "instant";
  }
  return "?";
}

}  // namespace

std::vector<RangeStatistic> range_statistics(const std::vector<TraceView>& traces, TimeWindow range,
                                             TaskControl* control) {
  std::vector<RangeStatistic> out;
  if (range.length_ns() <= 0) return out;
  for (std::size_t t = 0; t < traces.size(); ++t) {
    const TraceView& view = traces[t];
    if (!view.data) continue;
    const std::int64_t t0 = range.start_ns - view.offset_ns, t1 = range.end_ns - view.offset_ns;
    // Clipped durations by (kind, name).
    std::map<std::pair<EventSource, std::uint32_t>, std::vector<std::int64_t>> durations;
    std::size_t visited = 0;
    for (const Lane& lane : view.data->lanes) {
      for (const EventRow& row : lane.rows) {
        for (std::size_t i = row.first_ending_from(t0); i < row.size() && row.starts[i] < t1; ++i) {
          if (row.ends[i] == t0 && row.starts[i] < t0) continue;  // ends exactly where it starts
          durations[{row.source, row.names[i]}].push_back(std::min(row.ends[i], t1) -
                                                         std::max(row.starts[i], t0));
          if (control && ++visited % 65536 == 0) control->check();
        }
      }
    }
    for (auto& [key, values] : durations) {
      const analyzer::Distribution d = analyzer::distribution_of(values);
      RangeStatistic stat;
      stat.trace = static_cast<int>(t);
      stat.name = view.data->name(key.second);
      stat.kind = kind_of(key.first);
      stat.count = d.count;
      stat.total_ns = d.total_ns;
      stat.mean_ns = d.mean_ns;
      stat.p50_ns = d.median_ns;
      stat.p95_ns = d.p95_ns;
      stat.share = d.total_ns / static_cast<double>(range.length_ns());
      out.push_back(std::move(stat));
    }
  }
  std::sort(out.begin(), out.end(),
            [](const RangeStatistic& a, const RangeStatistic& b) { return a.total_ns > b.total_ns; });
  return out;
}

RangeStatisticsModel::RangeStatisticsModel(QObject* parent) : QAbstractTableModel(parent) {}

void RangeStatisticsModel::set_statistics(std::vector<RangeStatistic> statistics, TimeWindow range) {
  beginResetModel();
  statistics_ = std::move(statistics);
  range_ = range;
  endResetModel();
}

int RangeStatisticsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(statistics_.size());
}

int RangeStatisticsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumns;
}

QVariant RangeStatisticsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= kColumns) return {};
  const RangeStatistic& stat = statistics_[static_cast<std::size_t>(index.row())];
  if (role == kSortRole) {
    switch (index.column()) {
      case kName: return QString::fromStdString(stat.name);
      case kKind: return QString::fromStdString(stat.kind);
      case kCount: return static_cast<qlonglong>(stat.count);
      case kTotal: return stat.total_ns;
      case kMean: return stat.mean_ns;
      case kP50: return stat.p50_ns;
      case kP95: return stat.p95_ns;
      case kShare: return stat.share;
      case kTrace: return stat.trace;
    }
  }
  if (role == Qt::TextAlignmentRole && index.column() >= kCount)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kName: return QString::fromStdString(stat.name);
    case kKind: return QString::fromStdString(stat.kind);
    case kCount: return static_cast<qlonglong>(stat.count);
    case kTotal: return format_duration(stat.total_ns);
    case kMean: return format_duration(stat.mean_ns);
    case kP50: return format_duration(stat.p50_ns);
    case kP95: return format_duration(stat.p95_ns);
    case kShare: return QString::number(stat.share * 100, 'f', 1) + QLatin1Char('%');
    case kTrace: return stat.trace + 1;
  }
  return {};
}

QVariant RangeStatisticsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* const kTitles[kColumns] = {"Name", "Kind", "Count", "Total", "Mean",
                                                "p50",  "p95",  "Share", "Trace"};
  return section >= 0 && section < kColumns ? QString::fromLatin1(kTitles[section]) : QVariant();
}

}  // namespace parity::gui
