#include "parity/gui/compare/comparison_model.hpp"

#include <QBrush>
#include <QColor>
#include <limits>

#include "parity/analyzer/element_index.hpp"
#include "parity/analyzer/report_format.hpp"

namespace parity::gui {
namespace {

using Tone = ComparisonModel::Tone;

// The sort value of a numeric cell with no number: below every number, so
// that a descending sort puts the largest values first.
constexpr double kNoNumber = -std::numeric_limits<double>::infinity();

// Both colours are set for highlighted rows so that they read on a dark
// palette too; muted rows only grey their text.
QVariant foreground(Tone tone) {
  switch (tone) {
    case Tone::kMuted:
      return QBrush(QColor(0x80, 0x80, 0x80));
    case Tone::kFinding:
      return QBrush(QColor(0x8b, 0x00, 0x00));
    case Tone::kFirstMismatch:
      return QBrush(QColor(0x4a, 0x00, 0x00));
    case Tone::kFirstNonFinite:
      return QBrush(QColor(0x5a, 0x30, 0x00));
    case Tone::kNormal:
      break;
  }
  return {};
}

QVariant background(Tone tone) {
  switch (tone) {
    case Tone::kFinding:
      return QBrush(QColor(0xfd, 0xe2, 0xe1));
    case Tone::kFirstMismatch:
      return QBrush(QColor(0xf4, 0x9a, 0x96));
    case Tone::kFirstNonFinite:
      return QBrush(QColor(0xff, 0xc8, 0x7a));
    case Tone::kNormal:
    case Tone::kMuted:
      break;
  }
  return {};
}

}  // namespace

ComparisonModel::ComparisonModel(std::vector<ColumnInfo> columns, QObject* parent)
    : QAbstractTableModel(parent), columns_(std::move(columns)) {}

std::vector<ComparisonModel::ColumnInfo> ComparisonModel::metric_columns() {
  return {
      {tr("max abs"), tr("Largest |a - b| over the elements"), true, Metric::kMaxAbs},
      {tr("max rel"), tr("Largest |a - b| / |b| (B is the reference)"), true, Metric::kMaxRel},
      {tr("mean abs"), tr("Mean |a - b|"), true, Metric::kMeanAbs},
      {tr("cosine"), tr("Cosine similarity of the two tensors"), true, Metric::kCosine},
  };
}

int ComparisonModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : rows();
}

int ComparisonModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(columns_.size());
}

std::optional<double> ComparisonModel::metric_value(int row, Metric metric) const {
  const std::optional<analyzer::TensorMetrics>& m = metrics(row);
  if (!m) return std::nullopt;
  switch (metric) {
    case Metric::kMaxAbs:
      return m->max_abs_diff;
    case Metric::kMaxRel:
      return m->max_rel_diff;
    case Metric::kMeanAbs:
      return m->mean_abs_diff;
    case Metric::kCosine:
      return m->cosine_similarity;
  }
  return std::nullopt;
}

QVariant ComparisonModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const int row = index.row(), column = index.column();
  const ColumnInfo& info = columns_[static_cast<std::size_t>(column)];
  switch (role) {
    case Qt::DisplayRole:
      if (info.metric) {
        const auto value = metric_value(row, *info.metric);
        return value ? number_text(*value) : QString();
      }
      return text(row, column);
    case kSortRole:
      if (info.metric) return metric_value(row, *info.metric).value_or(kNoNumber);
      return info.numeric ? QVariant(number(row, column).value_or(kNoNumber))
                          : QVariant(text(row, column));
    case Qt::TextAlignmentRole:
      // An int, which every Qt 6 delegate reads.
      return (Qt::AlignVCenter | (info.numeric ? Qt::AlignRight : Qt::AlignLeft)).toInt();
    case Qt::ToolTipRole:
      return tooltip(row);
    case Qt::ForegroundRole:
      return foreground(tone(row));
    case Qt::BackgroundRole:
      return background(tone(row));
    case kAgreesRole:
      return agrees(row);
    case kFilterRole:
      return filter_text(row);
    default:
      return {};
  }
}

QVariant ComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= static_cast<int>(columns_.size()))
    return QAbstractTableModel::headerData(section, orientation, role);
  const ColumnInfo& column = columns_[static_cast<std::size_t>(section)];
  if (role == Qt::DisplayRole) return column.title;
  if (role == Qt::ToolTipRole && !column.tooltip.isEmpty()) return column.tooltip;
  return {};
}

std::optional<double> ComparisonModel::error(int row) const {
  const std::optional<analyzer::TensorMetrics>& m = metrics(row);
  if (!m) return std::nullopt;
  if (m->nonfinite_mismatches > 0) return std::numeric_limits<double>::infinity();
  return m->max_abs_diff;
}

ErrorHistogram ComparisonModel::histogram() const {
  std::vector<double> errors;
  for (int row = 0; row < rows(); ++row)
    if (const auto e = error(row)) errors.push_back(*e);
  return error_histogram(errors);
}

QString ComparisonModel::number_text(double value) {
  return to_qstring(analyzer::format_number(value));
}

QStringList ComparisonModel::metrics_lines(const analyzer::TensorMetrics& m,
                                           const std::vector<std::int64_t>& shape) {
  QStringList lines;
  if (m.max_abs_index >= 0)
    lines << tr("max abs %1 at %2")
                 .arg(number_text(m.max_abs_diff),
                      to_qstring(analyzer::element_index(m.max_abs_index, shape)));
  lines << tr("%1 of %2 elements equal, %3 within tolerance")
               .arg(m.equal_elements)
               .arg(m.elements)
               .arg(m.within_tolerance);
  if (m.nonfinite_mismatches > 0)
    lines << tr("NaN/Inf positions differ at %1 elements, first at %2")
                 .arg(m.nonfinite_mismatches)
                 .arg(to_qstring(analyzer::element_index(m.first_nonfinite_mismatch, shape)));
  if (m.max_ulp_diff) lines << tr("max ULP distance %1").arg(*m.max_ulp_diff);
  return lines;
}

}  // namespace parity::gui
