#include "loss_chart.hpp"

#include <QAreaSeries>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>
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

// The smallest box that holds every finite point of the series.
struct Bounds {
  double left = INFINITY, right = -INFINITY, low = INFINITY, high = -INFINITY;
  void add(const QList<QPointF>& points) {
    for (const QPointF& p : points) {
      if (!std::isfinite(p.x()) || !std::isfinite(p.y())) continue;
      left = std::min(left, p.x()), right = std::max(right, p.x());
      low = std::min(low, p.y()), high = std::max(high, p.y());
    }
  }
};

Bounds bounds(const std::vector<QAbstractSeries*>& all) {
  Bounds box;
  for (QAbstractSeries* series : all) {
    if (auto* line = qobject_cast<QXYSeries*>(series)) box.add(line->points());
    if (auto* area = qobject_cast<QAreaSeries*>(series)) {
      box.add(area->upperSeries()->points());
      box.add(area->lowerSeries()->points());
    }
  }
  if (!std::isfinite(box.left)) box = {0, 1, 0, 1};  // nothing finite to draw
  return box;
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
  // Axes over every series (Qt would fit them to the first one attached).
  const Bounds box = bounds(all);
  auto* x = new QValueAxis;
  x->setTitleText(tr("step"));
  x->setRange(box.left, std::max(box.right, box.left + 1));
  x->applyNiceNumbers();
  x->setLabelFormat(QStringLiteral("%.0f"));
  auto* y = new QValueAxis;
  y->setTitleText(tr("loss"));
  y->setRange(box.low, std::max(box.high, box.low + 1e-6));
  y->applyNiceNumbers();
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  for (QAbstractSeries* series : all) {
    c->addSeries(series);
    series->attachAxis(x);
    series->attachAxis(y);
  }
}

}  // namespace parity::gui
