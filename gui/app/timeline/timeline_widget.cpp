#include "timeline/timeline_widget.hpp"

#include <QContextMenuEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "parity/gui/timeline/timeline_painter.hpp"

namespace parity::gui {
namespace {
constexpr double kZoomStep = 0.8;     // one wheel notch or key press
constexpr double kPanStep = 0.1;      // of the window, per A / D press
constexpr double kDragThreshold = 4;  // pixels before a press becomes a drag
}  // namespace

TimelineWidget::TimelineWidget(ViewState& state, QWidget* parent)
    : QWidget(parent), state_(state), scroll_(new QScrollBar(Qt::Vertical, this)) {
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(false);
  setAttribute(Qt::WA_OpaquePaintEvent);
  connect(scroll_, &QScrollBar::valueChanged, this, qOverload<>(&QWidget::update));
  for (auto signal : {&ViewState::window_changed, &ViewState::selection_changed,
                      &ViewState::selected_event_changed, &ViewState::name_filter_changed,
                      &ViewState::lanes_changed})
    connect(&state_, signal, this, qOverload<>(&QWidget::update));
}

void TimelineWidget::set_traces(std::vector<TraceView> traces) {
  traces_ = std::move(traces);
  update();
}

double TimelineWidget::timeline_width() const {
  return std::max(1.0, static_cast<double>(width() - scroll_->width() - LayoutMetrics{}.header_width));
}

std::int64_t TimelineWidget::time_at(double x) const {
  const TimeWindow window = state_.window();
  const double fraction = (x - LayoutMetrics{}.header_width) / timeline_width();
  return window.start_ns + static_cast<std::int64_t>(std::llround(fraction * window.length_ns()));
}

void TimelineWidget::paintEvent(QPaintEvent*) {
  QElapsedTimer timer;
  timer.start();
  const QSize area(width() - scroll_->width(), height());
  frame_ = layout_timeline(traces_, state_, area, scroll_->value());
  QPainter painter(this);
  paint_timeline(painter, frame_, traces_);
  if (traces_.empty()) {
    painter.setPen(Qt::gray);
    painter.drawText(rect(), Qt::AlignCenter, tr("No trace open"));
  }
  last_frame_ms_ = static_cast<double>(timer.nsecsElapsed()) / 1e6;
  update_scroll_range();
}

void TimelineWidget::update_scroll_range() {
  const int visible = std::max(0, height() - LayoutMetrics{}.ruler_height);
  const int maximum = std::max(0, static_cast<int>(frame_.content_height) - visible);
  if (scroll_->maximum() != maximum) scroll_->setRange(0, maximum);
  scroll_->setPageStep(visible);
}

void TimelineWidget::resizeEvent(QResizeEvent*) {
  const int bar = scroll_->sizeHint().width();
  scroll_->setGeometry(width() - bar, 0, bar, height());
}

void TimelineWidget::wheelEvent(QWheelEvent* event) {
  const double notches = event->angleDelta().y() / 120.0;
  if (event->modifiers() & Qt::ShiftModifier) {
    scroll_->setValue(scroll_->value() - static_cast<int>(notches * 3 * LayoutMetrics{}.row_height));
  } else {
    state_.zoom(std::pow(kZoomStep, notches), time_at(event->position().x()));
  }
  event->accept();
}

void TimelineWidget::keyPressEvent(QKeyEvent* event) {
  const QPoint pointer = mapFromGlobal(QCursor::pos());
  const double anchor_x = rect().contains(pointer) && pointer.x() > LayoutMetrics{}.header_width
                              ? pointer.x()
                              : LayoutMetrics{}.header_width + timeline_width() / 2;
  const auto pan = static_cast<std::int64_t>(state_.window().length_ns() * kPanStep);
  switch (event->key()) {
    case Qt::Key_W: state_.zoom(kZoomStep, time_at(anchor_x)); break;
    case Qt::Key_S: state_.zoom(1 / kZoomStep, time_at(anchor_x)); break;
    case Qt::Key_A: state_.pan(-pan); break;
    case Qt::Key_D: state_.pan(pan); break;
    case Qt::Key_F: state_.fit(); break;
    case Qt::Key_Escape:
      state_.set_selection(std::nullopt);
      state_.set_selected_event(std::nullopt);
      break;
    default: QWidget::keyPressEvent(event); return;
  }
  event->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent* event) {
  press_at_ = event->position();
  press_time_ = time_at(press_at_.x());
  press_window_ = state_.window();
  moved_ = false;
  const bool range = event->button() == Qt::RightButton ||
                     (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier));
  drag_ = range ? Drag::kRange : event->button() == Qt::LeftButton ? Drag::kPan : Drag::kNone;
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event) {
  if (drag_ == Drag::kNone) return;
  const QPointF delta = event->position() - press_at_;
  if (!moved_ && std::abs(delta.x()) < kDragThreshold && std::abs(delta.y()) < kDragThreshold) return;
  moved_ = true;
  if (drag_ == Drag::kPan) {
    const double ns_per_px = static_cast<double>(press_window_.length_ns()) / timeline_width();
    const auto shift = static_cast<std::int64_t>(std::llround(-delta.x() * ns_per_px));
    state_.set_window({press_window_.start_ns + shift, press_window_.end_ns + shift});
    scroll_->setValue(scroll_->value() - static_cast<int>(event->position().y() - press_at_.y()));
    press_at_.setY(event->position().y());
  } else {
    state_.set_selection(TimeWindow{press_time_, time_at(event->position().x())});
  }
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* event) {
  if (!moved_ && drag_ == Drag::kPan && event->button() == Qt::LeftButton) click(event->position());
  drag_ = Drag::kNone;
}

void TimelineWidget::click(QPointF point) {
  if (const LaneBand* lane = frame_.lane_title_at(point)) {
    state_.set_lane_collapsed(lane->lane, !lane->collapsed);
    return;
  }
  const DrawnBox* box = frame_.box_at(point);
  if (!box) {
    state_.set_selected_event(std::nullopt);
    return;
  }
  if (box->is_fold()) {  // too small to pick one: show what it holds
    state_.set_window({frame_.time_at(box->rect.left()), frame_.time_at(box->rect.right())});
    return;
  }
  state_.set_selected_event(EventRef{box->trace, box->lane, box->row, box->first});
}

void TimelineWidget::contextMenuEvent(QContextMenuEvent* event) {
  const LaneBand* lane = frame_.lane_title_at(event->pos());
  if (!lane) return;
  const int id = lane->lane;
  const auto& order = state_.lane_order();
  const int position = static_cast<int>(std::find(order.begin(), order.end(), id) - order.begin());
  QMenu menu(this);
  menu.addAction(lane->collapsed ? tr("Expand") : tr("Collapse"),
                 [this, id, collapsed = lane->collapsed] { state_.set_lane_collapsed(id, !collapsed); });
  menu.addAction(tr("Move up"), [this, id, position] { state_.move_lane(id, position - 1); });
  menu.addAction(tr("Move down"), [this, id, position] { state_.move_lane(id, position + 1); });
  menu.addAction(tr("Move to top"), [this, id] { state_.move_lane(id, 0); });
  menu.addAction(tr("Move to bottom"),
                 [this, id, last = static_cast<int>(order.size())] { state_.move_lane(id, last); });
  menu.exec(event->globalPos());
}

}  // namespace parity::gui
