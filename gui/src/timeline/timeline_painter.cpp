#include "parity/gui/timeline/timeline_painter.hpp"

#include <QFontMetricsF>
#include <QPainterPath>
#include <cmath>
#include <functional>

namespace parity::gui {
namespace {

const QColor kBackground(252, 252, 252);
const QColor kHeader(236, 238, 242);
const QColor kGrid(225, 228, 234);
const QColor kText(30, 30, 35);
const QColor kFold(140, 146, 158);
const QColor kSelection(60, 120, 230, 40);
const QColor kSelectionEdge(60, 120, 230);
const QColor kCounterLine(30, 110, 190);

// Labels need this many pixels to be worth drawing.
constexpr double kMinLabelWidth = 28;

void paint_boxes(QPainter& painter, const Frame& frame, const std::vector<TraceView>& traces) {
  const QFontMetricsF metrics(painter.font());
  for (const DrawnBox& box : frame.boxes) {
    const TimelineData& data = *traces[static_cast<std::size_t>(box.trace)].data;
    if (box.is_fold()) {
      painter.fillRect(box.rect, kFold);
      if (box.rect.width() >= kMinLabelWidth) {
        painter.setPen(Qt::white);
        painter.drawText(box.rect.adjusted(2, 0, -2, 0), Qt::AlignCenter,
                         metrics.elidedText(QString::number(box.count), Qt::ElideRight,
                                            box.rect.width() - 4));
      }
      continue;
    }
    const std::string& name = data.name(box.name);
    QColor colour = colour_of_name(name);
    if (box.dimmed) colour = colour.lighter(170);
    painter.fillRect(box.rect, colour);
    if (box.rect.width() >= 4) {  // an edge, so that neighbours of one name stay apart
      painter.setPen(colour.darker(140));
      painter.drawLine(box.rect.topRight() - QPointF(0.5, 0), box.rect.bottomRight() - QPointF(0.5, 1));
    }
    if (box.rect.width() >= kMinLabelWidth) {
      painter.setPen(box.dimmed ? QColor(120, 120, 120) : kText);
      const QRectF text = box.rect.adjusted(3, 0, -2, 0);
      painter.drawText(text, Qt::AlignVCenter | Qt::AlignLeft,
                       metrics.elidedText(QString::fromStdString(name), Qt::ElideRight, text.width()));
    }
  }
}

void paint_counters(QPainter& painter, const Frame& frame) {
  painter.setRenderHint(QPainter::Antialiasing, false);
  for (const CounterPlot& plot : frame.counters) {
    painter.setPen(QPen(kCounterLine, 1));
    painter.drawPolyline(plot.line);
    painter.setPen(QColor(110, 110, 120));
    painter.drawText(plot.rect.adjusted(4, 0, -4, 0), Qt::AlignTop | Qt::AlignRight,
                     QString::number(plot.max, 'g', 5));
    painter.drawText(plot.rect.adjusted(4, 0, -4, 0), Qt::AlignBottom | Qt::AlignRight,
                     QString::number(plot.min, 'g', 5));
  }
}

void paint_titles(QPainter& painter, const Frame& frame) {
  const double header = frame.axis_left;
  for (const RowBand& row : frame.rows) {
    painter.setPen(kGrid);
    painter.drawLine(QPointF(header, row.rect.bottom()), QPointF(frame.size.width(), row.rect.bottom()));
  }
  painter.fillRect(QRectF(0, 0, header, frame.size.height()), kHeader);
  for (const LaneBand& lane : frame.lanes) {
    painter.fillRect(lane.title_rect, kHeader);
    painter.setPen(kText);
    QFont bold = painter.font();
    bold.setBold(true);
    painter.save();
    painter.setFont(bold);
    painter.drawText(lane.title_rect.adjusted(6, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft,
                     (lane.collapsed ? QStringLiteral("▸ ") : QStringLiteral("▾ ")) + lane.title);
    painter.restore();
  }
  painter.setPen(QColor(90, 90, 100));
  for (const RowBand& row : frame.rows)
    painter.drawText(QRectF(16, row.rect.top(), header - 20, row.rect.height()),
                     Qt::AlignVCenter | Qt::AlignLeft, row.title);
  for (const TraceBand& trace : frame.traces) {
    painter.fillRect(trace.rect, QColor(60, 64, 72));
    painter.setPen(Qt::white);
    painter.drawText(trace.rect.adjusted(6, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, trace.title);
  }
}

void paint_ruler(QPainter& painter, const Frame& frame, double height) {
  painter.fillRect(QRectF(0, 0, frame.size.width(), height), kHeader);
  painter.setPen(QColor(120, 120, 130));
  for (const RulerTick& tick : frame.ticks) {
    painter.drawLine(QPointF(tick.x, height - 6), QPointF(tick.x, height));
    painter.drawText(QRectF(tick.x + 3, 0, 120, height - 4), Qt::AlignBottom | Qt::AlignLeft, tick.label);
  }
}

void paint_selection(QPainter& painter, const Frame& frame) {
  if (frame.selection_x) {
    const auto [x0, x1] = *frame.selection_x;
    painter.fillRect(QRectF(x0, 0, std::max(1.0, x1 - x0), frame.size.height()), kSelection);
    painter.setPen(kSelectionEdge);
    painter.drawLine(QPointF(x0, 0), QPointF(x0, frame.size.height()));
    painter.drawLine(QPointF(x1, 0), QPointF(x1, frame.size.height()));
  }
  if (frame.selected_rect) {
    painter.setPen(QPen(Qt::black, 2));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(*frame.selected_rect);
  }
  if (frame.flow) {
    painter.setRenderHint(QPainter::Antialiasing, true);
    const auto [from, to] = *frame.flow;
    painter.setPen(QPen(QColor(200, 60, 40), 1.5));
    QPainterPath path(from);
    const double bend = (to.y() - from.y()) / 2;
    path.cubicTo(from + QPointF(0, bend), to - QPointF(0, bend), to);
    painter.drawPath(path);
    // The head points along the curve's last tangent: vertical, or along the
    // row when both ends are on one row.
    const QPointF direction = bend != 0 ? QPointF(0, bend) : to - from;
    const double angle = std::atan2(direction.y(), direction.x());
    const QPointF left = to - QPointF(std::cos(angle - 0.4) * 8, std::sin(angle - 0.4) * 8);
    const QPointF right = to - QPointF(std::cos(angle + 0.4) * 8, std::sin(angle + 0.4) * 8);
    painter.setBrush(QColor(200, 60, 40));
    painter.drawPolygon(QPolygonF({to, left, right}));
    painter.setRenderHint(QPainter::Antialiasing, false);
  }
}

}  // namespace

QColor colour_of_name(const std::string& name) {
  const std::size_t hash = std::hash<std::string>{}(name);
  return QColor::fromHsl(static_cast<int>(hash % 360), 110 + static_cast<int>((hash >> 9) % 60),
                         165 + static_cast<int>((hash >> 17) % 35));
}

void paint_timeline(QPainter& painter, const Frame& frame, const std::vector<TraceView>& traces) {
  painter.fillRect(QRect(QPoint(0, 0), frame.size), kBackground);
  const double ruler = frame.ruler_height;
  painter.save();
  painter.setClipRect(QRectF(frame.axis_left, ruler, frame.size.width() - frame.axis_left,
                             frame.size.height() - ruler));
  paint_boxes(painter, frame, traces);
  paint_counters(painter, frame);
  painter.restore();
  painter.save();
  painter.setClipRect(QRectF(0, ruler, frame.size.width(), frame.size.height() - ruler));
  paint_titles(painter, frame);
  painter.restore();
  paint_ruler(painter, frame, ruler);
  painter.save();
  painter.setClipRect(QRectF(frame.axis_left, 0, frame.size.width() - frame.axis_left,
                             frame.size.height()));
  paint_selection(painter, frame);
  painter.restore();
}

}  // namespace parity::gui
