// StepChartPanel: the step breakdown of one rank (the focus rank unless told
// otherwise) as stacked bars (step_bar_chart.hpp). It draws the steps around
// ViewState's window (see step_bars.hpp for how many and how they are
// grouped) and redraws when the window moves; clicking a bar shows its
// steps' time range on the timeline. With two runs, run A's chart above run
// B's: B's bars are the same steps as A's (aligned by step number), on the
// same scale, so each step's parts compare at a glance.
#pragma once

#include <QStringList>
#include <optional>
#include <vector>

#include "panels/report_panel.hpp"
#include "parity/gui/panels/step_bars.hpp"

class QLabel;

namespace parity::gui {

class StepBarChart;

class StepChartPanel : public ReportPanel {
  Q_OBJECT

 public:
  explicit StepChartPanel(ViewState& state, QWidget* parent = nullptr);

  // Shows this rank's steps (none, or a rank the report lacks: the focus rank).
  void set_rank(std::optional<std::int64_t> rank);
  // The bars drawn now: the chart's bar i is bars()[i].
  const std::vector<StepBar>& bars() const { return bars_; }
  // With two runs, run B's bar under bars()[i], if B has those steps.
  const std::vector<std::optional<StepBar>>& run_b_bars() const { return b_bars_; }
  // Whether run B's chart is shown (two runs).
  bool shows_run_b() const;
  // Shows bar `index`'s steps in `run`'s trace on the timeline: what clicking the bar does.
  void activate_bar(int index, Run run = Run::kA);

 private:
  void show_report() override;
  void redraw();
  QStringList bar_labels() const;
  QString bar_label(const StepBar& bar) const;
  QString bar_tooltip(Run run, int index) const;
  QString note() const;
  const analyzer::StepAnalysis& steps(Run run = Run::kA) const;
  // Bar `index` of `run`'s chart; none past the end or where B lacks the steps.
  std::optional<StepBar> bar(Run run, int index) const;

  std::optional<std::int64_t> rank_;
  std::vector<StepBar> bars_;
  std::vector<std::optional<StepBar>> b_bars_;
  StepBarChart* chart_a_;
  StepBarChart* chart_b_;
  QLabel* note_;
};

}  // namespace parity::gui
