// ComparisonModel: the table model both comparison views (weight diff, tensor
// compare) are built on: one row per compared item in the analyzer's order,
// the metric columns of a compared pair, the roles the window's proxy sorts
// and filters on, colours by what a row is (agreeing, a finding, the first
// mismatch, the first NaN/Inf), the row where the two sides first part ways,
// and the histogram of the rows' errors. The models hold the analyzer's result
// as it came and never change after construction.
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "parity/analyzer/weights/tensor_diff.hpp"
#include "parity/gui/compare/error_histogram.hpp"

namespace parity::gui {

// The analyzer's UTF-8 text as a QString.
inline QString to_qstring(std::string_view text) {
  return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

class ComparisonModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Role {
    // The cell's value: a double in numeric columns (-inf where the row has
    // none), the text elsewhere, so that columns sort by value.
    kSortRole = Qt::UserRole + 1,
    // bool: false for a finding, a row the user has to look at.
    kAgreesRole,
    // The text the filter box matches, the same in every column: the row's
    // names on both sides, its status and the like.
    kFilterRole,
  };
  // How a row is coloured (Qt::ForegroundRole, Qt::BackgroundRole): muted
  // for a row that is no finding but has a side missing, then by urgency.
  enum class Tone { kNormal, kMuted, kFinding, kFirstMismatch, kFirstNonFinite };

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  // The row where the two sides first part ways, in the analyzer's order;
  // none when they agree.
  virtual std::optional<int> first_mismatch_row() const = 0;
  // The verdict and the counts, a few lines for the top of the window.
  virtual QString summary() const = 0;
  // The row's error: the largest absolute difference of its elements,
  // infinite where NaN/Inf positions differ (the analyzer leaves NaN elements
  // out of max_abs_diff); none for a row whose values were not compared.
  std::optional<double> error(int row) const;
  // Of the rows that have an error.
  ErrorHistogram histogram() const;

 protected:
  enum class Metric { kMaxAbs, kMaxRel, kMeanAbs, kCosine };
  struct ColumnInfo {
    QString title;
    QString tooltip;
    bool numeric = false;
    std::optional<Metric> metric;  // filled from metrics(row) by this class
  };
  // The metric columns, in this order, for the subclasses' column lists.
  static std::vector<ColumnInfo> metric_columns();

  ComparisonModel(std::vector<ColumnInfo> columns, QObject* parent);

  virtual int rows() const = 0;
  // The compared pair's metrics; none for a row whose values were not compared.
  virtual const std::optional<analyzer::TensorMetrics>& metrics(int row) const = 0;
  // Of the columns that are not metric columns.
  virtual QString text(int row, int column) const = 0;
  // The value of a numeric column that is not a metric column; none where the
  // row has none.
  virtual std::optional<double> number(int row, int column) const = 0;
  virtual QString tooltip(int row) const = 0;
  virtual bool agrees(int row) const = 0;
  virtual Tone tone(int row) const = 0;
  virtual QString filter_text(int row) const = 0;

  // As the analyzer's reports write numbers ("0.031", "1.3e-06", "inf").
  static QString number_text(double value);
  // A line per fact of the row's metrics (where the largest difference is,
  // how many elements are equal and close, ...), for tooltips.
  static QStringList metrics_lines(const analyzer::TensorMetrics& metrics,
                                   const std::vector<std::int64_t>& shape);

 private:
  std::optional<double> metric_value(int row, Metric metric) const;

  std::vector<ColumnInfo> columns_;
};

}  // namespace parity::gui
