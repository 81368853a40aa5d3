#include "parity/gui/panels/op_diff_model.hpp"

#include <cmath>
#include <limits>

#include "parity/analyzer/profile/units.hpp"
#include "parity/analyzer/report_format.hpp"
#include "parity/gui/panels/item_roles.hpp"

namespace parity::gui {

namespace {

using analyzer::DiffRow;
using analyzer::DiffSide;

QString duration_text(double ns) { return QString::fromStdString(analyzer::format_duration(ns)); }

// B's time per step in percent of A's; +infinity when only B ran it.
double change_pct(const DiffRow& row) {
  const double a = row.a ? row.a->time_per_step_ns : 0;
  if (a <= 0) return std::numeric_limits<double>::infinity();
  return row.delta_per_step_ns() / a * 100;
}

// As diff-trace writes it: "+12.3%", "new", "gone".
QString change_text(const DiffRow& row) {
  if (!row.a) return QStringLiteral("new");
  if (!row.b) return QStringLiteral("gone");
  const double pct = change_pct(row);
  return std::isinf(pct) ? QString() : QString::asprintf("%+.1f%%", pct);
}

// A side's value: the raw number (kSortRole), or its text ("-" for a run that never ran it).
QVariant side_value(const std::optional<DiffSide>& side, bool time, int role) {
  if (role == kSortRole)
    return side ? (time ? side->time_per_step_ns : side->calls_per_step) : -1.0;
  if (!side) return QStringLiteral("-");
  return time ? duration_text(side->time_per_step_ns)
              : QString::fromStdString(analyzer::format_number(side->calls_per_step));
}

QVariant value(const DiffRow& row, int column, int role) {
  switch (column) {
    case OpDiffModel::kName:
      return QString::fromStdString(row.name);
    case OpDiffModel::kCallsA:
      return side_value(row.a, false, role);
    case OpDiffModel::kCallsB:
      return side_value(row.b, false, role);
    case OpDiffModel::kTimeA:
      return side_value(row.a, true, role);
    case OpDiffModel::kTimeB:
      return side_value(row.b, true, role);
    case OpDiffModel::kDifference: {
      const double delta = row.delta_per_step_ns();
      if (role == kSortRole) return delta;
      return (delta > 0 ? QStringLiteral("+") : QString()) + duration_text(delta);
    }
    case OpDiffModel::kChange:
      return role == kSortRole ? QVariant(change_pct(row)) : QVariant(change_text(row));
  }
  return {};
}

}  // namespace

OpDiffModel::OpDiffModel(Table table, QObject* parent)
    : QAbstractTableModel(parent), table_(table) {}

void OpDiffModel::set_diff(std::shared_ptr<const analyzer::TraceDiff> diff) {
  beginResetModel();
  diff_ = std::move(diff);
  endResetModel();
}

const std::vector<DiffRow>& OpDiffModel::rows() const {
  static const std::vector<DiffRow> none;
  if (!diff_) return none;
  return table_ == Table::kOps ? diff_->ops : diff_->kernels;
}

const DiffRow& OpDiffModel::diff_row(int row) const {
  return rows().at(static_cast<std::size_t>(row));
}

QString OpDiffModel::name(int row) const { return QString::fromStdString(diff_row(row).name); }

int OpDiffModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows().size());
}

int OpDiffModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumns;
}

QVariant OpDiffModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const DiffRow& row = diff_row(index.row());
  switch (role) {
    case Qt::DisplayRole:
    case kSortRole:
      return value(row, index.column(), role);
    case Qt::ToolTipRole:  // names are often longer than their column
      return index.column() == kName ? value(row, kName, role) : QVariant();
    case Qt::TextAlignmentRole:
      return QVariant::fromValue(Qt::AlignVCenter |
                                 (index.column() == kName ? Qt::AlignLeft : Qt::AlignRight));
    default:
      return {};
  }
}

QVariant OpDiffModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kName:
      return tr("Name");
    case kCallsA:
      return tr("Calls/step A");
    case kCallsB:
      return tr("Calls/step B");
    case kTimeA:
      return tr("Time/step A");
    case kTimeB:
      return tr("Time/step B");
    case kDifference:
      return tr("Difference");
    case kChange:
      return tr("Change");
  }
  return {};
}

}  // namespace parity::gui
