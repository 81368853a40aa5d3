#include "panels/step_chart_panel.hpp"

#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QLabel>
#include <QStackedBarSeries>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>

#include "parity/analyzer/profile/units.hpp"
#include "parity/gui/panels/report_rank.hpp"

namespace parity::gui {

namespace {

using analyzer::StepPart;

// The HTML report's colours for the same parts.
QColor part_colour(StepPart part) {
  switch (part) {
    case StepPart::kDataWait:
      return QColor(0xe1, 0x57, 0x59);
    case StepPart::kForward:
      return QColor(0x4e, 0x79, 0xa7);
    case StepPart::kBackward:
      return QColor(0x59, 0xa1, 0x4f);
    case StepPart::kOptimizer:
      return QColor(0xf2, 0x8e, 0x2b);
    case StepPart::kCommunication:
      return QColor(0xb0, 0x7a, 0xa1);
    case StepPart::kOther:
      break;
  }
  return QColor(0xba, 0xb0, 0xac);
}

// About this many bars are labelled with their steps; more labels would overlap.
constexpr std::size_t kAxisLabels = 12;

// Label every 1, 2, 5, 10, 20, ... bars: the fewest that keep to kAxisLabels.
std::size_t label_every(std::size_t bars) {
  for (std::size_t power = 1;; power *= 10)
    for (const std::size_t every : {power, 2 * power, 5 * power})
      if (bars <= every * kAxisLabels) return every;
}

bool same_steps(const std::vector<StepBar>& a, const std::vector<StepBar>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const StepBar& x, const StepBar& y) {
    return x.first == y.first && x.last == y.last;
  });
}

}  // namespace

StepChartPanel::StepChartPanel(ViewState& state, QWidget* parent)
    : ReportPanel(state, parent),
      chart_(new QChart),
      series_(new QStackedBarSeries),
      step_axis_(new QCategoryAxis),
      ms_axis_(new QValueAxis),
      note_(new QLabel) {
  for (const StepPart part : analyzer::kAllStepParts) {
    auto* set = new QBarSet(QString::fromUtf8(analyzer::step_part_name(part)));
    const QColor colour = part_colour(part);
    set->setColor(colour);
    set->setBorderColor(colour);
    QColor pale = colour;
    pale.setAlphaF(0.3f);
    set->setSelectedColor(pale);  // warm-up bars are the selected ones
    series_->append(set);
    sets_[static_cast<std::size_t>(part)] = set;
  }
  chart_->addSeries(series_);
  step_axis_->setTitleText(tr("step"));
  step_axis_->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  step_axis_->setGridLineVisible(false);
  ms_axis_->setTitleText(tr("ms"));
  ms_axis_->setLabelFormat(QStringLiteral("%.3g"));
  chart_->addAxis(step_axis_, Qt::AlignBottom);
  chart_->addAxis(ms_axis_, Qt::AlignLeft);
  series_->attachAxis(step_axis_);
  series_->attachAxis(ms_axis_);
  chart_->legend()->setAlignment(Qt::AlignBottom);

  auto* view = new QChartView(chart_);
  view->setRenderHint(QPainter::Antialiasing);
  note_->setObjectName(QStringLiteral("note"));
  note_->setWordWrap(true);
  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(view, 1);
  layout->addWidget(note_);
  set_content(content);

  connect(series_, &QStackedBarSeries::clicked, this,
          [this](int index, QBarSet*) { activate_bar(index); });
  connect(series_, &QStackedBarSeries::hovered, this, [this](bool on, int index, QBarSet*) {
    if (on)
      QToolTip::showText(QCursor::pos(), bar_tooltip(index));
    else
      QToolTip::hideText();
  });
  connect(&state_, &ViewState::window_changed, this, [this] {
    if (report()) redraw();
  });
}

const analyzer::StepAnalysis& StepChartPanel::steps() const {
  return report_rank(*report(), rank_).steps;
}

void StepChartPanel::set_rank(std::optional<std::int64_t> rank) {
  rank_ = rank;
  if (report()) show_report();
}

void StepChartPanel::show_report() {
  const analyzer::RankProfile& profile = report_rank(*report(), rank_);
  chart_->setTitle(profile.world_size > 1 ? tr("Step breakdown, rank %1").arg(profile.rank)
                                          : tr("Step breakdown"));
  bars_.clear();  // a new report: draw even if the same steps are chosen
  redraw();
}

void StepChartPanel::redraw() {
  std::vector<StepBar> bars = step_bars(steps(), state_.window());
  if (!bars_.empty() && same_steps(bars, bars_)) return;
  bars_ = std::move(bars);

  std::array<QList<qreal>, analyzer::kStepParts> values;
  QList<int> warmup;
  double top = 0;
  for (std::size_t i = 0; i < bars_.size(); ++i) {
    const StepBar& bar = bars_[i];
    double total = 0;
    for (std::size_t p = 0; p < analyzer::kStepParts; ++p) {
      values[p].append(bar.part_ms[p]);
      total += bar.part_ms[p];
    }
    top = std::max(top, total);
    if (bar.warmup) warmup.append(static_cast<int>(i));
  }
  for (std::size_t p = 0; p < analyzer::kStepParts; ++p) {
    sets_[p]->remove(0, sets_[p]->count());
    sets_[p]->append(values[p]);
    sets_[p]->selectBars(warmup);
  }
  label_steps();
  ms_axis_->setRange(0, top > 0 ? top : 1);
  ms_axis_->applyNiceNumbers();
  note_->setText(note());
}

// Bars sit at 0, 1, 2, ... on the axis. Labels go on the bars whose place in
// the run (in bars) is a multiple of label_every, so they stay put as the
// window pans.
void StepChartPanel::label_steps() {
  for (const QString& label : step_axis_->categoriesLabels()) step_axis_->remove(label);
  const std::size_t every = label_every(bars_.size());
  const std::size_t per_bar = bars_.front().steps();  // the last bar may hold fewer
  for (std::size_t i = 0; i < bars_.size(); ++i)
    if ((bars_[i].first / per_bar) % every == 0)
      step_axis_->append(bar_label(bars_[i]), static_cast<qreal>(i));
  step_axis_->setRange(-0.5, static_cast<qreal>(bars_.size()) - 0.5);
}

QString StepChartPanel::bar_label(const StepBar& bar) const {
  const auto& all = steps().steps;
  if (bar.steps() == 1) return QString::number(all[bar.first].step);
  return QStringLiteral("%1–%2").arg(all[bar.first].step).arg(all[bar.last].step);
}

QString StepChartPanel::bar_tooltip(int index) const {
  if (index < 0 || static_cast<std::size_t>(index) >= bars_.size()) return {};
  const StepBar& bar = bars_[static_cast<std::size_t>(index)];
  QString tip = bar.steps() == 1 ? tr("step %1").arg(bar_label(bar))
                                 : tr("steps %1 (mean of %2)").arg(bar_label(bar)).arg(bar.steps());
  if (bar.warmup) tip += tr(", warm-up");
  double total = 0;
  for (const double ms : bar.part_ms) total += ms;
  tip += QStringLiteral("\n%1 %2").arg(
      tr("total"), QString::fromStdString(analyzer::format_duration(total * 1e6)));
  for (const StepPart part : analyzer::kAllStepParts)
    tip += QStringLiteral("\n%1 %2").arg(QString::fromUtf8(analyzer::step_part_name(part)),
                                         QString::fromStdString(analyzer::format_duration(
                                             bar.part_ms[static_cast<std::size_t>(part)] * 1e6)));
  return tip;
}

QString StepChartPanel::note() const {
  const analyzer::StepAnalysis& analysis = steps();
  const auto& all = analysis.steps;
  const std::size_t per_bar = bars_.front().steps();
  QString text = tr("Steps %1–%2 of %3")
                     .arg(all[bars_.front().first].step)
                     .arg(all[bars_.back().last].step)
                     .arg(all.size());
  text +=
      per_bar == 1
          ? tr(", one bar each.")
          : tr(", each bar the mean of %1 neighbouring steps: click one to zoom in.").arg(per_bar);
  if (bars_.front().warmup)
    text += (analysis.warmup_steps == 1
                 ? tr(" Pale: warm-up (the first step)")
                 : tr(" Pale: warm-up (the first %1 steps)").arg(analysis.warmup_steps)) +
            tr(", left out of the steady-state statistics.");
  return text;
}

void StepChartPanel::activate_bar(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= bars_.size()) return;
  state_.show_range(bars_[static_cast<std::size_t>(index)].range);
}

}  // namespace parity::gui
