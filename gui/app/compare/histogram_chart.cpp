#include "histogram_chart.hpp"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QValueAxis>
#include <algorithm>

namespace parity::gui {

HistogramChart::HistogramChart(QWidget* parent) : QChartView(parent) {
  chart()->legend()->hide();
  chart()->setTitle(tr("Largest |a - b| per compared tensor"));
  setRenderHint(QPainter::Antialiasing);
  setMinimumHeight(180);
}

void HistogramChart::set_histogram(const ErrorHistogram& histogram) {
  QChart* c = chart();
  c->removeAllSeries();
  for (QAbstractAxis* axis : c->axes()) {
    c->removeAxis(axis);
    delete axis;
  }
  auto* set = new QBarSet(tr("tensors"));
  QStringList labels;
  std::size_t highest = 0;
  for (int bar = 0; bar < histogram.bars(); ++bar) {
    *set << static_cast<double>(histogram.count(bar));
    labels << histogram.label(bar);
    highest = std::max(highest, histogram.count(bar));
  }
  // Dark labels: a bar too short to hold its label has it above, on the background.
  set->setLabelColor(palette().color(QPalette::WindowText));
  auto* series = new QBarSeries;
  series->append(set);
  series->setLabelsVisible(true);
  series->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
  c->addSeries(series);

  auto* x = new QBarCategoryAxis;
  x->append(labels);
  x->setTitleText(tr("decade of the largest |a - b| (0: identical)"));
  c->addAxis(x, Qt::AlignBottom);
  series->attachAxis(x);
  auto* y = new QValueAxis;
  // Headroom above the tallest bar for its label.
  y->setRange(0, std::max(1.0, static_cast<double>(highest) * 1.25));
  y->setLabelFormat(QStringLiteral("%d"));
  y->setTitleText(tr("tensors"));
  c->addAxis(y, Qt::AlignLeft);
  series->attachAxis(y);
  c->setTitle(tr("Largest |a - b| per compared tensor (%1 tensors)").arg(histogram.total()));
}

}  // namespace parity::gui
