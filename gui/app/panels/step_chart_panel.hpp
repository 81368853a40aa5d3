// StepChartPanel: the step breakdown of one rank (the focus rank unless told
// otherwise) as stacked bars, one segment per part of the step (data_wait,
// forward, backward, optimizer, communication, other; in ms), warm-up bars
// pale. It draws the steps around ViewState's window (see step_bars.hpp for
// how many and how they are grouped) and redraws when the window moves;
// clicking a bar shows its steps' time range on the timeline.
#pragma once

#include <array>
#include <optional>
#include <vector>

#include "panels/report_panel.hpp"
#include "parity/gui/panels/step_bars.hpp"

class QBarSet;
class QCategoryAxis;
class QChart;
class QLabel;
class QStackedBarSeries;
class QValueAxis;

namespace parity::gui {

class StepChartPanel : public ReportPanel {
  Q_OBJECT

 public:
  explicit StepChartPanel(ViewState& state, QWidget* parent = nullptr);

  // Shows this rank's steps (none, or a rank the report lacks: the focus rank).
  void set_rank(std::optional<std::int64_t> rank);
  // The bars drawn now: the chart's bar i is bars()[i].
  const std::vector<StepBar>& bars() const { return bars_; }
  // Shows bar `index`'s steps on the timeline: what clicking the bar does.
  void activate_bar(int index);

 private:
  void show_report() override;
  void redraw();
  void label_steps();
  QString bar_label(const StepBar& bar) const;
  QString bar_tooltip(int index) const;
  QString note() const;
  const analyzer::StepAnalysis& steps() const;

  std::optional<std::int64_t> rank_;
  std::vector<StepBar> bars_;
  QChart* chart_;
  QStackedBarSeries* series_;
  std::array<QBarSet*, analyzer::kStepParts> sets_{};
  QCategoryAxis* step_axis_;
  QValueAxis* ms_axis_;
  QLabel* note_;
};

}  // namespace parity::gui
