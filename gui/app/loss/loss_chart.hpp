// LossChart: the loss curves of `parity-view --loss` as a line chart: A and B
// over the steps, the band B had to stay in (A widened by the tolerances),
// and a marker at the first step where they part.
#pragma once

#include <QChartView>

#include "parity/analyzer/loss/loss_compare.hpp"

namespace parity::gui {

class LossChart : public QChartView {
  Q_OBJECT

 public:
  explicit LossChart(QWidget* parent = nullptr);

  void set_comparison(const analyzer::LossComparison& comparison);
};

}  // namespace parity::gui
