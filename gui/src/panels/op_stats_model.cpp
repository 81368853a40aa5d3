#include "parity/gui/panels/op_stats_model.hpp"

#include <vector>

#include "parity/analyzer/profile/units.hpp"
#include "parity/gui/panels/item_roles.hpp"

namespace parity::gui {

namespace {

using analyzer::KernelStat;
using analyzer::OpStat;

enum class Format { kText, kCount, kDuration, kPercent };

template <class Stat>
struct Column {
  const char* header;
  const char* tooltip;
  Format format;
  QVariant (*value)(const Stat&);
};

template <class Stat>
struct Columns {
  std::vector<Column<Stat>> columns;
  int ranking;  // the column the analyzer orders the rows by
};

// The columns every table has: the name and the statistics of the calls' times.
template <class Stat>
std::vector<Column<Stat>> name_and_time_columns() {
  return {
      {"Name", "the name the timeline shows", Format::kText,
       [](const Stat& s) -> QVariant { return QString::fromStdString(s.name); }},
      {"Calls", "how many times it ran", Format::kCount,
       [](const Stat& s) -> QVariant { return static_cast<qlonglong>(s.time.count); }},
      {"Total", "the time of all calls", Format::kDuration,
       [](const Stat& s) -> QVariant { return s.time.total_ns; }},
      {"Mean", "the mean time of a call", Format::kDuration,
       [](const Stat& s) -> QVariant { return s.time.mean_ns; }},
      {"Median", "the median time of a call", Format::kDuration,
       [](const Stat& s) -> QVariant { return s.time.median_ns; }},
      {"p95", "the 95th percentile of a call's time", Format::kDuration,
       [](const Stat& s) -> QVariant { return s.time.p95_ns; }},
  };
}

constexpr int kTotalColumn = 2;

const Columns<OpStat>& op_columns() {
  static const Columns<OpStat> columns = [] {
    Columns<OpStat> c{name_and_time_columns<OpStat>(), kTotalColumn};
    c.columns.push_back({"Max", "the longest call", Format::kDuration,
                         [](const OpStat& s) -> QVariant { return s.time.max_ns; }});
    c.columns.push_back(
        {"Step share", "total time / total step time (threads in parallel can exceed 100%)",
         Format::kPercent, [](const OpStat& s) -> QVariant { return s.step_share; }});
    return c;
  }();
  return columns;
}

const Columns<OpStat>& layer_columns() {
  static const Columns<OpStat> columns = [] {
    Columns<OpStat> c{name_and_time_columns<OpStat>(), kTotalColumn + 2};
    c.columns.insert(c.columns.begin() + 1,
                     {"Phase", "the phase the layer ran in", Format::kText,
                      [](const OpStat& s) -> QVariant { return QString::fromStdString(s.phase); }});
    c.columns.insert(c.columns.begin() + kTotalColumn + 2,
                     {"Self", "the total less the time of layers nested in it", Format::kDuration,
                      [](const OpStat& s) -> QVariant { return s.self_ns; }});
    c.columns.push_back(
        {"Step share", "total time / total step time (threads in parallel can exceed 100%)",
         Format::kPercent, [](const OpStat& s) -> QVariant { return s.step_share; }});
    return c;
  }();
  return columns;
}

const Columns<KernelStat>& kernel_columns() {
  static const Columns<KernelStat> columns = [] {
    Columns<KernelStat> c{name_and_time_columns<KernelStat>(), kTotalColumn};
    c.columns.push_back({"Device share", "of all kernel time", Format::kPercent,
                         [](const KernelStat& s) -> QVariant { return s.device_share; }});
    c.columns.push_back({"Launch", "the mean duration of the API call that queued it",
                         Format::kDuration,
                         [](const KernelStat& s) -> QVariant { return s.launch.mean_ns; }});
    c.columns.push_back({"Queue", "the mean time from the launch call's end to the kernel's start",
                         Format::kDuration,
                         [](const KernelStat& s) -> QVariant { return s.queue.mean_ns; }});
    return c;
  }();
  return columns;
}

QString display_text(Format format, const QVariant& value) {
  switch (format) {
    case Format::kText:
      return value.toString();
    case Format::kCount:
      return QString::number(value.toLongLong());
    case Format::kDuration:
      return QString::fromStdString(analyzer::format_duration(value.toDouble()));
    case Format::kPercent:
      return QString::fromStdString(analyzer::format_percent(value.toDouble()));
  }
  return {};
}

template <class Stat>
QVariant cell(const Column<Stat>& column, const Stat& stat, int role) {
  switch (role) {
    case Qt::DisplayRole:
      return display_text(column.format, column.value(stat));
    case kSortRole:
      return column.value(stat);
    case Qt::ToolTipRole:  // names are often longer than their column
      return column.format == Format::kText ? column.value(stat) : QVariant();
    case Qt::TextAlignmentRole:
      return QVariant::fromValue(Qt::AlignVCenter |
                                 (column.format == Format::kText ? Qt::AlignLeft : Qt::AlignRight));
    default:
      return {};
  }
}

template <class Stat>
QVariant header(const Column<Stat>& column, int role) {
  if (role == Qt::DisplayRole) return QString::fromUtf8(column.header);
  if (role == Qt::ToolTipRole) return QString::fromUtf8(column.tooltip);
  return {};
}

// Calls f(columns, rows) with the table's columns and the analysis's rows of it.
template <class F>
QVariant visit_table(OpStatsModel::Table table, const analyzer::OpAnalysis& analysis, F&& f) {
  if (table == OpStatsModel::Table::kOps) return f(op_columns(), analysis.ops);
  if (table == OpStatsModel::Table::kLayers) return f(layer_columns(), analysis.layers);
  return f(kernel_columns(), analysis.kernels);
}

}  // namespace

OpStatsModel::OpStatsModel(Table table, QObject* parent)
    : QAbstractTableModel(parent), table_(table) {}

void OpStatsModel::set_analysis(std::shared_ptr<const analyzer::OpAnalysis> analysis) {
  beginResetModel();
  analysis_ = std::move(analysis);
  endResetModel();
}

const analyzer::OpAnalysis& OpStatsModel::analysis() const {
  static const analyzer::OpAnalysis none;
  return analysis_ ? *analysis_ : none;
}

int OpStatsModel::ranking_column() const {
  return visit_table(table_, analysis(),
                     [](const auto& columns, const auto&) -> QVariant { return columns.ranking; })
      .toInt();
}

int OpStatsModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid()) return 0;
  return visit_table(table_, analysis(),
                     [](const auto&, const auto& rows) -> QVariant {
                       return static_cast<int>(rows.size());
                     })
      .toInt();
}

int OpStatsModel::columnCount(const QModelIndex& parent) const {
  if (parent.isValid()) return 0;
  return visit_table(table_, analysis(),
                     [](const auto& columns, const auto&) -> QVariant {
                       return static_cast<int>(columns.columns.size());
                     })
      .toInt();
}

QString OpStatsModel::name(int row) const {
  return data(index(row, kNameColumn), kSortRole).toString();
}

QVariant OpStatsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const auto row = static_cast<std::size_t>(index.row());
  const auto column = static_cast<std::size_t>(index.column());
  return visit_table(table_, analysis(), [&](const auto& columns, const auto& rows) {
    return cell(columns.columns[column], rows[row], role);
  });
}

QVariant OpStatsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= columnCount()) return {};
  const auto column = static_cast<std::size_t>(section);
  return visit_table(table_, analysis(), [&](const auto& columns, const auto&) {
    return header(columns.columns[column], role);
  });
}

}  // namespace parity::gui
