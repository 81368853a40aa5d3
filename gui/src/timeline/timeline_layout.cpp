#include "parity/gui/timeline/timeline_layout.hpp"

#include <algorithm>
#include <cmath>

namespace parity::gui {
namespace {

// Lane order for one trace: the state's order, then any lane it does not
// know (a second trace with more lanes than the first).
std::vector<int> lanes_in_order(const ViewState& state, std::size_t lane_count) {
  std::vector<int> order;
  std::vector<bool> seen(lane_count, false);
  for (int lane : state.lane_order()) {
    if (lane < 0 || static_cast<std::size_t>(lane) >= lane_count) continue;
    order.push_back(lane);
    seen[static_cast<std::size_t>(lane)] = true;
  }
  for (std::size_t lane = 0; lane < lane_count; ++lane)
    if (!seen[lane]) order.push_back(static_cast<int>(lane));
  return order;
}

// Which of a trace's names the filter keeps (all when it is empty).
std::vector<char> names_matching(const TimelineData& data, const QString& filter) {
  std::vector<char> match(data.strings.size(), 1);
  if (filter.isEmpty()) return match;
  const QByteArray needle = filter.toUtf8().toLower();
  for (std::size_t i = 0; i < data.strings.size(); ++i)
    match[i] = QByteArray::fromStdString(data.strings[i]).toLower().contains(needle) ? 1 : 0;
  return match;
}

// A round tick spacing (1, 2 or 5 times a power of ten) of at least `ns`.
std::int64_t nice_step(double ns) {
  double step = std::pow(10.0, std::floor(std::log10(std::max(ns, 1.0))));
  for (double factor : {1.0, 2.0, 5.0, 10.0})
    if (step * factor >= ns) return static_cast<std::int64_t>(step * factor);
  return static_cast<std::int64_t>(step * 10);
}

class FrameBuilder {
 public:
  FrameBuilder(const std::vector<TraceView>& traces, const ViewState& state, QSize size,
               double scroll_y, const LayoutMetrics& metrics)
      : traces_(traces), state_(state), metrics_(metrics) {
    frame_.size = size;
    frame_.window = state.window();
    frame_.axis_left = metrics.header_width;
    frame_.ruler_height = metrics.ruler_height;
    const double width = std::max(1.0, size.width() - frame_.axis_left);
    frame_.ns_per_px = std::max(1e-6, static_cast<double>(frame_.window.length_ns()) / width);
    y_ = metrics.ruler_height - scroll_y;
    scroll_y_ = scroll_y;
  }

  Frame build() {
    lay_out_ruler();
    for (std::size_t t = 0; t < traces_.size(); ++t) lay_out_trace(static_cast<int>(t));
    frame_.content_height = y_ - metrics_.ruler_height + scroll_y_;
    lay_out_selection();
    return std::move(frame_);
  }

 private:
  bool on_screen(double top, double height) const {
    return top + height > metrics_.ruler_height && top < frame_.size.height();
  }

  void lay_out_ruler() {
    const std::int64_t step = nice_step(90 * frame_.ns_per_px);
    const std::int64_t origin = state_.extent().start_ns;
    std::int64_t tick = frame_.window.start_ns - ((frame_.window.start_ns - origin) % step);
    if (tick < frame_.window.start_ns) tick += step;
    for (; tick <= frame_.window.end_ns; tick += step)
      frame_.ticks.push_back({frame_.x_of(tick), format_duration(static_cast<double>(tick - origin))});
  }

  void lay_out_trace(int t) {
    const TraceView& view = traces_[static_cast<std::size_t>(t)];
    if (!view.data) return;
    if (traces_.size() > 1) {
      frame_.traces.push_back({t, QRectF(0, y_, frame_.size.width(), metrics_.trace_title_height),
                               view.title});
      y_ += metrics_.trace_title_height;
    }
    const std::vector<char> match = names_matching(*view.data, state_.name_filter());
    for (int l : lanes_in_order(state_, view.data->lanes.size())) {
      const Lane& lane = view.data->lanes[static_cast<std::size_t>(l)];
      LaneBand band;
      band.trace = t;
      band.lane = l;
      band.collapsed = state_.lane_collapsed(l);
      band.title = QString::fromStdString(lane.title);
      band.title_rect = QRectF(0, y_, frame_.size.width(), metrics_.lane_title_height);
      const double top = y_;
      y_ += metrics_.lane_title_height;
      if (!band.collapsed) {
        for (std::size_t r = 0; r < lane.rows.size(); ++r)
          lay_out_row(view, t, l, static_cast<int>(r), match);
        for (std::size_t c = 0; c < lane.counters.size(); ++c)
          lay_out_counter(view, t, l, static_cast<int>(lane.rows.size() + c), lane.counters[c]);
      }
      band.rect = QRectF(0, top, frame_.size.width(), y_ - top);
      frame_.lanes.push_back(std::move(band));
    }
  }

  void lay_out_row(const TraceView& view, int t, int l, int r, const std::vector<char>& match) {
    const EventRow& row = view.data->lanes[static_cast<std::size_t>(l)].rows[static_cast<std::size_t>(r)];
    const QRectF rect(0, y_, frame_.size.width(), metrics_.row_height);
    y_ += metrics_.row_height;
    frame_.rows.push_back({t, l, r, rect, QString::fromStdString(row.title)});
    if (!on_screen(rect.top(), rect.height())) return;
    const double left = frame_.axis_left, right = frame_.size.width();
    fold_row(row, view.offset_ns, frame_.window, frame_.ns_per_px, metrics_.fold_px,
             [&](std::size_t first, std::size_t count, std::int64_t start, std::int64_t end) {
               double x0 = std::max(left - 1, frame_.x_of(start + view.offset_ns));
               double x1 = std::min(right + 1, frame_.x_of(end + view.offset_ns));
               x1 = std::max(x1, x0 + 1);
               DrawnBox box;
               box.rect = QRectF(x0, rect.top() + 1, x1 - x0, rect.height() - 2);
               box.trace = t;
               box.lane = l;
               box.row = r;
               box.first = static_cast<std::int64_t>(first);
               box.count = static_cast<std::int64_t>(count);
               box.name = row.names[first];
               box.dimmed = count == 1 && box.name < match.size() && !match[box.name];
               frame_.boxes.push_back(box);
             });
  }

  void lay_out_counter(const TraceView& view, int t, int l, int r, const CounterRow& series) {
    CounterPlot plot;
    plot.trace = t;
    plot.lane = l;
    plot.row = r;
    plot.rect = QRectF(frame_.axis_left, y_ + 2, frame_.size.width() - frame_.axis_left,
                       metrics_.counter_height - 4);
    plot.title = QString::fromStdString(series.title);
    plot.min = series.min;
    plot.max = series.max;
    frame_.rows.push_back({t, l, r, QRectF(0, y_, frame_.size.width(), metrics_.counter_height),
                           plot.title});
    y_ += metrics_.counter_height;
    if (series.size() == 0 || !on_screen(plot.rect.top(), plot.rect.height())) return;
    const double span = series.max > series.min ? series.max - series.min : 1.0;
    auto y_of = [&](double value) {
      return plot.rect.bottom() - (value - series.min) / span * plot.rect.height();
    };
    // One column per pixel: the value carried in, the column's min and max,
    // and the value carried out, so spikes narrower than a pixel still show.
    const int columns = static_cast<int>(plot.rect.width());
    auto index_at = [&](std::int64_t axis_ns) {
      return static_cast<std::size_t>(
          std::lower_bound(series.times.begin(), series.times.end(), axis_ns - view.offset_ns) -
          series.times.begin());
    };
    std::size_t i = index_at(frame_.window.start_ns);
    std::optional<double> carried;
    if (i > 0) carried = series.values[i - 1];
    for (int c = 0; c < columns && i < series.size(); ++c) {
      const double x = plot.rect.left() + c;
      const std::size_t end = index_at(frame_.time_at(x + 1));
      if (end <= i) continue;
      const auto [lo, hi] = series.min_max(i, end);
      if (carried) plot.line << QPointF(x, y_of(*carried));
      plot.line << QPointF(x, y_of(lo)) << QPointF(x, y_of(hi));
      carried = series.values[end - 1];
      plot.line << QPointF(x, y_of(*carried));
      i = end;
    }
    if (carried) plot.line << QPointF(plot.rect.right(), y_of(*carried));
    frame_.counters.push_back(std::move(plot));
  }

  const RowBand* row_band(int t, int l, int r) const {
    for (const RowBand& band : frame_.rows)
      if (band.trace == t && band.lane == l && band.row == r) return &band;
    return nullptr;
  }

  std::optional<QRectF> event_rect(const EventRef& event) const {
    if (event.trace < 0 || static_cast<std::size_t>(event.trace) >= traces_.size()) return std::nullopt;
    const TraceView& view = traces_[static_cast<std::size_t>(event.trace)];
    const RowBand* band = row_band(event.trace, event.lane, event.row);
    if (!band || !view.data) return std::nullopt;
    const Lane& lane = view.data->lanes[static_cast<std::size_t>(event.lane)];
    if (static_cast<std::size_t>(event.row) >= lane.rows.size()) return std::nullopt;
    const EventRow& row = lane.rows[static_cast<std::size_t>(event.row)];
    if (event.index < 0 || static_cast<std::size_t>(event.index) >= row.size()) return std::nullopt;
    const auto index = static_cast<std::size_t>(event.index);
    const double x0 = frame_.x_of(row.starts[index] + view.offset_ns);
    const double x1 = std::max(frame_.x_of(row.ends[index] + view.offset_ns), x0 + 2);
    return QRectF(x0, band->rect.top() + 1, x1 - x0, band->rect.height() - 2);
  }

  void lay_out_selection() {
    if (const auto& range = state_.selection())
      frame_.selection_x = std::pair{frame_.x_of(range->start_ns), frame_.x_of(range->end_ns)};
    const auto& selected = state_.selected_event();
    if (!selected) return;
    frame_.selected_rect = event_rect(*selected);
    const TraceView& view = traces_[static_cast<std::size_t>(std::clamp<int>(
        selected->trace, 0, static_cast<int>(traces_.size()) - 1))];
    if (!frame_.selected_rect || !view.data) return;
    const auto partner = view.data->correlated(*selected);
    if (!partner) return;
    const auto partner_rect = event_rect(*partner);
    if (!partner_rect) return;
    // The arrow runs from the launch (an API call) to the kernel it queued.
    const bool selected_is_launch =
        view.data->lanes[static_cast<std::size_t>(selected->lane)]
            .rows[static_cast<std::size_t>(selected->row)]
            .source == EventSource::kApiCall;
    const QRectF& launch = selected_is_launch ? *frame_.selected_rect : *partner_rect;
    const QRectF& kernel = selected_is_launch ? *partner_rect : *frame_.selected_rect;
    frame_.flow = std::pair{QPointF(launch.left(), launch.center().y()),
                            QPointF(kernel.left(), kernel.center().y())};
  }

  const std::vector<TraceView>& traces_;
  const ViewState& state_;
  const LayoutMetrics& metrics_;
  Frame frame_;
  double y_ = 0, scroll_y_ = 0;
};

}  // namespace

std::int64_t Frame::time_at(double x) const {
  return window.start_ns + static_cast<std::int64_t>(std::llround((x - axis_left) * ns_per_px));
}

const DrawnBox* Frame::box_at(QPointF point) const {
  for (const DrawnBox& box : boxes)
    if (box.rect.adjusted(0, 0, 0.5, 0).contains(point)) return &box;
  return nullptr;
}

const LaneBand* Frame::lane_title_at(QPointF point) const {
  for (const LaneBand& lane : lanes)
    if (lane.title_rect.contains(point)) return &lane;
  return nullptr;
}

void fold_row(const EventRow& row, std::int64_t offset_ns, TimeWindow window, double ns_per_px,
              double fold_px,
              const std::function<void(std::size_t, std::size_t, std::int64_t, std::int64_t)>& on_box) {
  const std::int64_t t0 = window.start_ns - offset_ns, t1 = window.end_ns - offset_ns;
  const auto min_width = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(fold_px * ns_per_px)));
  const auto& starts = row.starts;
  const auto& ends = row.ends;
  // Events starting at or after the window's end are not in view: folds stop there.
  const std::size_t n = row.first_starting_from(t1);
  std::size_t i = row.first_ending_from(t0);
  while (i < n) {
    if (ends[i] - starts[i] >= min_width) {
      on_box(i, 1, starts[i], ends[i]);
      ++i;
      continue;
    }
    // A run of narrow events: take every event that ends within min_width of
    // the run's latest start, while the next one is narrow too and starts
    // less than a pixel after the run ends.
    std::size_t j = i;
    std::int64_t run_end = ends[i];
    do {
      const std::int64_t limit = starts[j] + min_width;
      const auto k = static_cast<std::size_t>(
          std::upper_bound(ends.begin() + static_cast<std::ptrdiff_t>(j),
                           ends.begin() + static_cast<std::ptrdiff_t>(n), limit) -
          ends.begin());
      j = std::max(k, j + 1);
      run_end = ends[j - 1];
    } while (j < n && ends[j] - starts[j] < min_width &&
             static_cast<double>(starts[j] - run_end) < ns_per_px);
    on_box(i, j - i, starts[i], run_end);
    i = j;
  }
}

Frame layout_timeline(const std::vector<TraceView>& traces, const ViewState& state, QSize size,
                      double scroll_y, const LayoutMetrics& metrics) {
  return FrameBuilder(traces, state, size, scroll_y, metrics).build();
}

QString format_duration(double ns) {
  const double magnitude = std::abs(ns);
  if (magnitude >= 1e9) return QString::number(ns / 1e9, 'g', 4) + QStringLiteral(" s");
  if (magnitude >= 1e6) return QString::number(ns / 1e6, 'g', 4) + QStringLiteral(" ms");
  if (magnitude >= 1e3) return QString::number(ns / 1e3, 'g', 4) + QStringLiteral(" µs");
  return QString::number(ns, 'g', 4) + QStringLiteral(" ns");
}

}  // namespace parity::gui
