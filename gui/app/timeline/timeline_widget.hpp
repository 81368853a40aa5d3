// TimelineWidget: the timeline on screen. It lays out a Frame for the
// ViewState's window on every paint and draws it; input changes the state
// (never a private copy), so every other view follows.
//
//   wheel, W / S        zoom in / out at the pointer
//   A / D, left drag    pan
//   Shift+wheel         scroll lanes vertically
//   F                   fit the whole trace
//   click               select an event (a fold: zoom into it)
//   right drag, Shift+left drag   select a time range (statistics)
//   click a lane title  collapse or expand; its context menu moves it
//   Esc                 clear the selections
#pragma once

#include <QElapsedTimer>
#include <QScrollBar>
#include <QWidget>
#include <optional>
#include <vector>

#include "parity/gui/timeline/timeline_layout.hpp"
#include "parity/gui/view_state.hpp"

namespace parity::gui {

class TimelineWidget : public QWidget {
  Q_OBJECT

 public:
  explicit TimelineWidget(ViewState& state, QWidget* parent = nullptr);

  void set_traces(std::vector<TraceView> traces);
  const std::vector<TraceView>& traces() const { return traces_; }
  // The frame painted last and how long its layout and painting took.
  const Frame& last_frame() const { return frame_; }
  double last_frame_ms() const { return last_frame_ms_; }

  QSize sizeHint() const override { return {1200, 700}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;

 private:
  enum class Drag { kNone, kPan, kRange };

  void update_scroll_range();
  std::int64_t time_at(double x) const;
  void click(QPointF point);
  double timeline_width() const;

  ViewState& state_;
  std::vector<TraceView> traces_;
  QScrollBar* scroll_;
  Frame frame_;
  double last_frame_ms_ = 0;
  Drag drag_ = Drag::kNone;
  QPointF press_at_;
  std::int64_t press_time_ = 0;
  TimeWindow press_window_;
  bool moved_ = false;
};

}  // namespace parity::gui
