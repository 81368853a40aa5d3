// HistogramChart: the error histogram of a comparison view (ErrorHistogram)
// as a bar chart: how many compared tensors fall in each order of magnitude
// of their largest absolute difference.
#pragma once

#include <QChartView>

#include "parity/gui/compare/error_histogram.hpp"

namespace parity::gui {

class HistogramChart : public QChartView {
  Q_OBJECT

 public:
  explicit HistogramChart(QWidget* parent = nullptr);

  void set_histogram(const ErrorHistogram& histogram);
};

}  // namespace parity::gui
