// OpDiffModel: one of a TraceDiff's tables (ops or GPU kernels) as a table
// model, the rows of `parity diff-trace`: per name, run A's and run B's
// calls and time per steady-state step, B's difference and its change in
// percent of A ("new" when only B ran it, "gone" when only A did). Rows keep
// the analyzer's order, largest difference (either way) first. Cells display
// with units; kSortRole gives the raw numbers.
#pragma once

#include <QAbstractTableModel>
#include <memory>

#include "parity/analyzer/profile/trace_diff.hpp"

namespace parity::gui {

class OpDiffModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum class Table { kOps, kKernels };
  enum Column { kName, kCallsA, kCallsB, kTimeA, kTimeB, kDifference, kChange, kColumns };
  static constexpr int kNameColumn = kName;

  explicit OpDiffModel(Table table, QObject* parent = nullptr);

  // Shows this diff's table (null: no rows). The pointer may alias what owns the diff.
  void set_diff(std::shared_ptr<const analyzer::TraceDiff> diff);
  Table table() const { return table_; }
  const analyzer::DiffRow& diff_row(int row) const;
  QString name(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  const std::vector<analyzer::DiffRow>& rows() const;

  Table table_;
  std::shared_ptr<const analyzer::TraceDiff> diff_;
};

}  // namespace parity::gui
