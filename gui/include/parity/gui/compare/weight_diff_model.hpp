// WeightDiffModel: a weight diff (`parity diff`, analyzer/weights) as a table,
// one row per parameter in the analyzer's order: the pairs in A's order, then
// the parameters only one checkpoint has. A row disagrees when its status does
// not agree (status_agrees): a mismatch, a shape or dtype difference, or a
// parameter left unpaired.
#pragma once

#include "parity/analyzer/weights/weight_diff.hpp"
#include "parity/gui/compare/comparison_model.hpp"

namespace parity::gui {

class WeightDiffModel : public ComparisonModel {
  Q_OBJECT

 public:
  enum Column {
    kIndex,
    kStatus,
    kNameA,
    kNameB,
    kShape,
    kDtype,
    kMaxAbs,
    kMaxRel,
    kMeanAbs,
    kCosine,
    kWithinTolerance,
    kTolerance,
    kPairedBy,
    kNote,
    kColumnCount
  };

  explicit WeightDiffModel(analyzer::WeightDiff diff, QObject* parent = nullptr);

  const analyzer::WeightDiff& diff() const { return diff_; }
  const analyzer::ParameterDiff& parameter(int row) const;

  std::optional<int> first_mismatch_row() const override { return first_mismatch_; }
  QString summary() const override;

 protected:
  int rows() const override;
  const std::optional<analyzer::TensorMetrics>& metrics(int row) const override;
  QString text(int row, int column) const override;
  std::optional<double> number(int row, int column) const override;
  QString tooltip(int row) const override;
  bool agrees(int row) const override;
  Tone tone(int row) const override;
  QString filter_text(int row) const override;

 private:
  static std::vector<ColumnInfo> columns();

  analyzer::WeightDiff diff_;
  std::optional<int> first_mismatch_;
};

}  // namespace parity::gui
