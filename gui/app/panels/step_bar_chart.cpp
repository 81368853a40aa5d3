#include "panels/step_bar_chart.hpp"

#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QStackedBarSeries>
#include <QValueAxis>

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

}  // namespace

StepBarChart::StepBarChart(QWidget* parent)
    : QChartView(new QChart, parent),
      series_(new QStackedBarSeries),
      step_axis_(new QCategoryAxis),
      ms_axis_(new QValueAxis) {
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
  QChart* plot = chart();
  plot->addSeries(series_);
  step_axis_->setTitleText(tr("step"));
  step_axis_->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  step_axis_->setGridLineVisible(false);
  ms_axis_->setTitleText(tr("ms"));
  ms_axis_->setLabelFormat(QStringLiteral("%.3g"));
  plot->addAxis(step_axis_, Qt::AlignBottom);
  plot->addAxis(ms_axis_, Qt::AlignLeft);
  series_->attachAxis(step_axis_);
  series_->attachAxis(ms_axis_);
  plot->legend()->setAlignment(Qt::AlignBottom);
  plot->setMargins(QMargins(4, 2, 4, 2));  // two charts share the dock when two runs are open
  setRenderHint(QPainter::Antialiasing);
  connect(series_, &QStackedBarSeries::clicked, this,
          [this](int index, QBarSet*) { emit bar_clicked(index); });
  connect(series_, &QStackedBarSeries::hovered, this,
          [this](bool on, int index, QBarSet*) { emit bar_hovered(on, index); });
}

void StepBarChart::show_bars(const std::vector<std::optional<StepBar>>& bars,
                             const QStringList& labels, double top_ms) {
  std::array<QList<qreal>, analyzer::kStepParts> values;
  QList<int> warmup;
  for (std::size_t i = 0; i < bars.size(); ++i) {
    for (std::size_t p = 0; p < analyzer::kStepParts; ++p)
      values[p].append(bars[i] ? bars[i]->part_ms[p] : 0.0);
    if (bars[i] && bars[i]->warmup) warmup.append(static_cast<int>(i));
  }
  for (std::size_t p = 0; p < analyzer::kStepParts; ++p) {
    sets_[p]->remove(0, sets_[p]->count());
    sets_[p]->append(values[p]);
    sets_[p]->selectBars(warmup);
  }
  for (const QString& label : step_axis_->categoriesLabels()) step_axis_->remove(label);
  for (qsizetype i = 0; i < labels.size() && static_cast<std::size_t>(i) < bars.size(); ++i)
    if (!labels[i].isEmpty() && bars[static_cast<std::size_t>(i)])
      step_axis_->append(labels[i], static_cast<qreal>(i));
  step_axis_->setRange(-0.5, static_cast<qreal>(bars.size()) - 0.5);
  ms_axis_->setRange(0, top_ms > 0 ? top_ms : 1);
  ms_axis_->applyNiceNumbers();
}

}  // namespace parity::gui
