// The timeline's layout: what to draw for a view of one or more traces, as
// plain data (a Frame), apart from the painting (timeline_painter.hpp). Tests
// check a Frame structurally: which boxes and folds, where.
//
// Level of detail: in each row, an event at least `fold_px` wide is a box of
// its own; a run of narrower events folds into one box that counts them
// (Tracy's rule). The row's events are found by binary search, so a frame
// costs about (rows on screen) x (view width / fold_px) x log(events),
// whatever the zoom. No event is hidden under another: every event in the
// window is in exactly one box of its row.
#pragma once

#include <QPointF>
#include <QPolygonF>
#include <QRectF>
#include <QSize>
#include <QString>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "parity/gui/timeline/timeline_data.hpp"
#include "parity/gui/view_state.hpp"

namespace parity::gui {

struct LayoutMetrics {
  int header_width = 200;  // lane titles, left of the time axis
  int ruler_height = 26;
  int trace_title_height = 22;  // only when several traces are shown
  int lane_title_height = 18;
  int row_height = 17;
  int counter_height = 44;
  double fold_px = 3.0;  // events narrower than this fold
};

// A trace on the common time axis: axis time = trace time + offset_ns
// (traces opened side by side are aligned by a step this way).
struct TraceView {
  const TimelineData* data = nullptr;
  std::int64_t offset_ns = 0;
  QString title;
};

struct LaneBand {
  int trace = 0, lane = 0;
  QRectF title_rect;  // the lane's title line, full width
  QRectF rect;        // title and rows
  bool collapsed = false;
  QString title;
};

struct TraceBand {
  int trace = 0;
  QRectF rect;
  QString title;
};

struct DrawnBox {
  QRectF rect;
  int trace = 0, lane = 0, row = 0;
  std::int64_t first = 0;  // index of its (first) event in the row
  std::int64_t count = 1;  // > 1: a fold of that many events
  std::uint32_t name = 0;  // of the first event
  bool dimmed = false;     // the name filter does not match it
  bool is_fold() const { return count > 1; }
};

struct RowBand {
  int trace = 0, lane = 0, row = 0;
  QRectF rect;
  QString title;
};

struct CounterPlot {
  int trace = 0, lane = 0, row = 0;
  QRectF rect;
  QPolygonF line;  // step line with each pixel column's min and max
  double min = 0, max = 0;
  QString title;
};

struct RulerTick {
  double x = 0;
  QString label;
};

struct Frame {
  QSize size;
  TimeWindow window;
  double ns_per_px = 1;
  double axis_left = 0;  // x of window.start_ns
  double ruler_height = 0;
  std::vector<TraceBand> traces;
  std::vector<LaneBand> lanes;
  std::vector<RowBand> rows;
  std::vector<DrawnBox> boxes;
  std::vector<CounterPlot> counters;
  std::vector<RulerTick> ticks;
  std::optional<std::pair<double, double>> selection_x;  // the selected range, in x
  std::optional<QRectF> selected_rect;                   // the selected event
  std::optional<std::pair<QPointF, QPointF>> flow;       // launch -> kernel arrow
  double content_height = 0;                             // all lanes, unscrolled

  double x_of(std::int64_t axis_ns) const {
    return axis_left + static_cast<double>(axis_ns - window.start_ns) / ns_per_px;
  }
  std::int64_t time_at(double x) const;
  // The box under a point (the topmost: folds and boxes never overlap).
  const DrawnBox* box_at(QPointF point) const;
  const LaneBand* lane_title_at(QPointF point) const;
};

// Lays out `traces` in the view `state` describes, in a widget of `size`
// scrolled down by `scroll_y` pixels. Lanes follow state.lane_order().
Frame layout_timeline(const std::vector<TraceView>& traces, const ViewState& state, QSize size,
                      double scroll_y = 0, const LayoutMetrics& metrics = {});

// The boxes of one row between axis times [start, end) at `ns_per_px`
// (exposed for tests and the benchmark's naive peer).
void fold_row(const EventRow& row, std::int64_t offset_ns, TimeWindow window, double ns_per_px,
              double fold_px, const std::function<void(std::size_t first, std::size_t count,
                                                       std::int64_t start, std::int64_t end)>& on_box);

// A duration or time for a ruler or a table: "1.5 s", "250 µs", "80 ns".
QString format_duration(double ns);

}  // namespace parity::gui
