// TensorCompareModel: a tensor compare (`parity compare`, analyzer/compare)
// as a table, one row per record in A's execution order, then the records only
// B has. The first mismatch is the earliest mismatching row (the first tensor
// where the two runs part ways); the first NaN/Inf is the row of the first
// record holding one, in either dump, as `parity nan-scan` finds it.
#pragma once

#include "parity/gui/compare/comparison_model.hpp"
#include "parity/gui/compare/tensor_compare_loader.hpp"

namespace parity::gui {

class TensorCompareModel : public ComparisonModel {
  Q_OBJECT

 public:
  enum Column {
    kIndex,
    kStatus,
    kRecord,
    kStep,
    kPhase,
    kRole,
    kOp,
    kShape,
    kDtype,
    kMaxAbs,
    kMaxRel,
    kMeanAbs,
    kCosine,
    kCheck,
    kPairedBy,
    kColumnCount
  };

  explicit TensorCompareModel(TensorComparison comparison, QObject* parent = nullptr);

  const TensorComparison& comparison() const { return comparison_; }
  const analyzer::RecordDiff& record_diff(int row) const;

  std::optional<int> first_mismatch_row() const override { return first_mismatch_; }
  std::optional<int> first_nonfinite_row() const { return first_nonfinite_; }
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
  const importers::DumpRecord& shown_record(int row) const;  // A's, or B's when only B has it

  TensorComparison comparison_;
  // The first divergence in execution order, as `parity compare`'s first
  // line names them per phase: the earlier of the first mismatching pair and
  // the first structural divergence (then its index into `structure`).
  std::optional<int> first_mismatch_;
  std::optional<std::size_t> first_structural_;
  // Row -> index into `structure` of the structural divergence it shows:
  // findings, as in `parity compare`, even where the record has no counterpart.
  std::map<int, std::size_t> structural_rows_;
  // The rows of each dump's first NaN/Inf, and the earlier of the two.
  std::optional<int> nonfinite_a_, nonfinite_b_, first_nonfinite_;
};

}  // namespace parity::gui
