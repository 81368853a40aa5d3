// StepBarChart: one run's step bars as a stacked bar chart, one segment per
// part of the step (data_wait, forward, backward, optimizer, communication,
// other; in ms; the HTML report's colours), warm-up bars pale. The step
// breakdown panel holds one per run shown and says what to draw.
#pragma once

#include <QChartView>
#include <QStringList>
#include <array>
#include <optional>
#include <vector>

#include "parity/gui/panels/step_bars.hpp"

class QBarSet;
class QCategoryAxis;
class QStackedBarSeries;
class QValueAxis;

namespace parity::gui {

class StepBarChart : public QChartView {
  Q_OBJECT

 public:
  explicit StepBarChart(QWidget* parent = nullptr);

  // Draws `bars` (a missing bar is an empty place) at 0, 1, 2, ... with
  // labels[i] under bar i (none where it is empty), up to `top_ms`.
  void show_bars(const std::vector<std::optional<StepBar>>& bars, const QStringList& labels,
                 double top_ms);

 signals:
  void bar_clicked(int index);
  void bar_hovered(bool on, int index);

 private:
  QStackedBarSeries* series_;
  std::array<QBarSet*, analyzer::kStepParts> sets_{};
  QCategoryAxis* step_axis_;
  QValueAxis* ms_axis_;
};

}  // namespace parity::gui
