#include "panels/step_chart_panel.hpp"

#include <QChart>
#include <QCursor>
#include <QFileInfo>
#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>

#include "panels/step_bar_chart.hpp"
#include "parity/analyzer/profile/units.hpp"
#include "parity/gui/panels/report_rank.hpp"

namespace parity::gui {

namespace {

using analyzer::StepPart;

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

double total_ms(const StepBar& bar) {
  double total = 0;
  for (const double ms : bar.part_ms) total += ms;
  return total;
}

}  // namespace

StepChartPanel::StepChartPanel(ViewState& state, QWidget* parent)
    : ReportPanel(state, parent),
      chart_a_(new StepBarChart),
      chart_b_(new StepBarChart),
      note_(new QLabel) {
  note_->setObjectName(QStringLiteral("note"));
  note_->setWordWrap(true);
  chart_b_->hide();
  chart_b_->chart()->legend()->hide();  // the colours are A's legend's
  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(chart_a_, 1);
  layout->addWidget(chart_b_, 1);
  layout->addWidget(note_);
  set_content(content);

  for (const Run run : {Run::kA, Run::kB}) {
    StepBarChart* chart = run == Run::kA ? chart_a_ : chart_b_;
    connect(chart, &StepBarChart::bar_clicked, this,
            [this, run](int index) { activate_bar(index, run); });
    connect(chart, &StepBarChart::bar_hovered, this, [this, run](bool on, int index) {
      if (on)
        QToolTip::showText(QCursor::pos(), bar_tooltip(run, index));
      else
        QToolTip::hideText();
    });
  }
  connect(&state_, &ViewState::window_changed, this, [this] {
    if (report()) redraw();
  });
}

const analyzer::StepAnalysis& StepChartPanel::steps(Run run) const {
  if (run == Run::kB) return report_rank(*run_pair()->b, rank_).steps;
  return report_rank(*report(), rank_).steps;
}

bool StepChartPanel::shows_run_b() const { return !chart_b_->isHidden(); }

void StepChartPanel::set_rank(std::optional<std::int64_t> rank) {
  rank_ = rank;
  if (report()) show_report();
}

void StepChartPanel::show_report() {
  const analyzer::RankProfile& profile = report_rank(*report(), rank_);
  QString title = profile.world_size > 1 ? tr("Step breakdown, rank %1").arg(profile.rank)
                                         : tr("Step breakdown");
  chart_b_->setVisible(run_pair() != nullptr);
  // Two charts share the height: the legend goes beside the first.
  chart_a_->chart()->legend()->setAlignment(run_pair() ? Qt::AlignRight : Qt::AlignBottom);
  if (run_pair()) {
    const auto file = [](const std::string& path) {
      return QFileInfo(QString::fromStdString(path)).fileName();
    };
    chart_b_->chart()->setTitle(title + tr(" — B: %1").arg(file(run_pair()->diff.b_path)));
    title += tr(" — A: %1").arg(file(run_pair()->diff.a_path));
  }
  chart_a_->chart()->setTitle(title);
  bars_.clear();  // a new report: draw even if the same steps are chosen
  redraw();
}

void StepChartPanel::redraw() {
  std::vector<StepBar> bars = step_bars(steps(), state_.window());
  if (!bars_.empty() && same_steps(bars, bars_)) return;
  bars_ = std::move(bars);
  b_bars_.clear();
  if (run_pair()) b_bars_ = aligned_step_bars(steps(Run::kB), steps(), bars_);

  // One scale for both runs, so that their bars compare.
  double top = 0;
  for (const StepBar& bar : bars_) top = std::max(top, total_ms(bar));
  for (const auto& bar : b_bars_)
    if (bar) top = std::max(top, total_ms(*bar));
  const QStringList labels = bar_labels();
  chart_a_->show_bars({bars_.begin(), bars_.end()}, labels, top);
  if (run_pair()) chart_b_->show_bars(b_bars_, labels, top);
  note_->setText(note());
}

// Labels go on the bars whose place in the run (in bars) is a multiple of
// label_every, so they stay put as the window pans.
QStringList StepChartPanel::bar_labels() const {
  QStringList labels;
  const std::size_t every = label_every(bars_.size());
  const std::size_t per_bar = bars_.front().steps();  // the last bar may hold fewer
  for (const StepBar& bar : bars_)
    labels << ((bar.first / per_bar) % every == 0 ? bar_label(bar) : QString());
  return labels;
}

QString StepChartPanel::bar_label(const StepBar& bar) const {
  const auto& all = steps().steps;
  if (bar.steps() == 1) return QString::number(all[bar.first].step);
  return QStringLiteral("%1–%2").arg(all[bar.first].step).arg(all[bar.last].step);
}

std::optional<StepBar> StepChartPanel::bar(Run run, int index) const {
  const auto i = static_cast<std::size_t>(index);
  if (index < 0 || i >= bars_.size()) return std::nullopt;
  if (run == Run::kB) return i < b_bars_.size() ? b_bars_[i] : std::nullopt;
  return bars_[i];
}

QString StepChartPanel::bar_tooltip(Run run, int index) const {
  const std::optional<StepBar> drawn = bar(run, index);
  if (!drawn) return {};
  // Labelled by run A's step numbers, which run B's aligned bars share.
  const StepBar& a_bar = bars_[static_cast<std::size_t>(index)];
  QString tip = drawn->steps() == 1
                    ? tr("step %1").arg(bar_label(a_bar))
                    : tr("steps %1 (mean of %2)").arg(bar_label(a_bar)).arg(drawn->steps());
  if (run_pair()) tip = tr("run %1, ").arg(QString(run_name(run))) + tip;
  if (drawn->warmup) tip += tr(", warm-up");
  tip += QStringLiteral("\n%1 %2").arg(
      tr("total"), QString::fromStdString(analyzer::format_duration(total_ms(*drawn) * 1e6)));
  for (const StepPart part : analyzer::kAllStepParts)
    tip += QStringLiteral("\n%1 %2").arg(
        QString::fromUtf8(analyzer::step_part_name(part)),
        QString::fromStdString(
            analyzer::format_duration(drawn->part_ms[static_cast<std::size_t>(part)] * 1e6)));
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
  if (run_pair()) {
    const auto missing = std::count(b_bars_.begin(), b_bars_.end(), std::nullopt);
    text += tr(" Run B below: the same steps, on the same scale");
    text += missing > 0 ? tr(" (%1 bars empty: B has no such steps).").arg(missing) : tr(".");
  }
  return text;
}

void StepChartPanel::activate_bar(int index, Run run) {
  if (const std::optional<StepBar> drawn = bar(run, index)) show_range_of(run, drawn->range);
}

}  // namespace parity::gui
