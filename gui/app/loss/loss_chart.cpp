#include "loss_chart.hpp"

#include <QAreaSeries>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>
#include <cmath>

namespace parity::gui {
namespace {

QLineSeries* curve_series(const analyzer::LossCurve& curve, const QString& name) {
  auto* series = new QLineSeries;
  series->setName(name);
  for (const analyzer::LossPoint& point : curve.points)
    if (std::isfinite(point.loss)) series->append(static_cast<double>(point.step), point.loss);
  return series;
}

// The band between each common step's low and high.
QAreaSeries* band_series(const analyzer::LossComparison& comparison) {
  auto* low = new QLineSeries;
  auto* high = new QLineSeries;
  for (const analyzer::LossStep& step : comparison.steps) {
    if (!std::isfinite(step.low) || !std::isfinite(step.high)) continue;
    low->append(static_cast<double>(step.step), step.low);
    high->append(static_cast<double>(step.step), step.high);
  }
  auto* band = new QAreaSeries(high, low);
  band->setName(comparison.band.empty() ? QObject::tr("A's tolerance")
                                        : QObject::tr("band of A's runs"));
  band->setColor(QColor(186, 176, 172, 110));
  band->setBorderColor(QColor(186, 176, 172));
  return band;
}

}  // namespace

LossChart::LossChart(QWidget* parent) : QChartView(parent) {
  chart()->setTitle(tr("Loss per step"));
  setRenderHint(QPainter::Antialiasing);
  setMinimumHeight(260);
}

void LossChart::set_comparison(const analyzer::LossComparison& comparison) {
  QChart* c = chart();
  c->removeAllSeries();
  for (QAbstractAxis* axis : c->axes()) {
    c->removeAxis(axis);
    delete axis;
  }
  std::vector<QAbstractSeries*> all{band_series(comparison), curve_series(comparison.a, tr("A")),
                                    curve_series(comparison.b, tr("B"))};
  if (comparison.first_parted) {
    const analyzer::LossStep& parted = comparison.steps[*comparison.first_parted];
    auto* marker = new QScatterSeries;
    marker->setName(tr("parted at step %1").arg(parted.step));
    marker->setColor(QColor(225, 87, 89));
    if (std::isfinite(parted.b)) marker->append(static_cast<double>(parted.step), parted.b);
    all.push_back(marker);
  }
  auto* x = new QValueAxis;
  x->setTitleText(tr("step"));
  x->setLabelFormat(QStringLiteral("%d"));
  auto* y = new QValueAxis;
  y->setTitleText(tr("loss"));
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  for (QAbstractSeries* series : all) {
    c->addSeries(series);
    series->attachAxis(x);
    series->attachAxis(y);
  }
}

}  // namespace parity::gui
