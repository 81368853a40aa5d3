// OpStatsModel: one of the analyzer's operator tables (host ops by type,
// layers by layer and phase, GPU kernels by name) as a table model. Cells
// display with units ("12.4 ms", "3.1%"); kSortRole gives the raw numbers.
// Rows keep the analyzer's order: ops and kernels by total time, layers by
// self time, largest first.
#pragma once

#include <QAbstractTableModel>
#include <memory>

#include "parity/analyzer/profile/op_analysis.hpp"

namespace parity::gui {

class OpStatsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum class Table { kOps, kLayers, kKernels };
  static constexpr int kNameColumn = 0;

  explicit OpStatsModel(Table table, QObject* parent = nullptr);

  // Shows this analysis's table (null: no rows). The pointer may alias the
  // report that owns the analysis, keeping it alive.
  void set_analysis(std::shared_ptr<const analyzer::OpAnalysis> analysis);
  Table table() const { return table_; }
  // The column the analyzer ranks the rows by: total time, self time for layers.
  int ranking_column() const;
  QString name(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  const analyzer::OpAnalysis& analysis() const;  // an empty one before set_analysis

  Table table_;
  std::shared_ptr<const analyzer::OpAnalysis> analysis_;
};

}  // namespace parity::gui
