#include "parity/gui/view_state.hpp"

#include <algorithm>
#include <cmath>

namespace parity::gui {

namespace {
// Panning and zooming may go this far past either end of the extent, so the
// first and last events can be brought to the middle of the view.
constexpr double kExtentMargin = 0.5;
}  // namespace

ViewState::ViewState(QObject* parent) : QObject(parent) {}

void ViewState::set_extent(TimeWindow extent) {
  if (extent.end_ns <= extent.start_ns) extent.end_ns = extent.start_ns + kMinWindowNs;
  extent_ = extent;
  fit();
}

TimeWindow ViewState::clamped(TimeWindow window) const {
  const auto margin = static_cast<std::int64_t>(extent_.length_ns() * kExtentMargin);
  const std::int64_t lo = extent_.start_ns - margin, hi = extent_.end_ns + margin;
  std::int64_t length = std::clamp(window.length_ns(), kMinWindowNs, hi - lo);
  std::int64_t start = std::clamp(window.start_ns, lo, hi - length);
  return {start, start + length};
}

void ViewState::set_window(TimeWindow window) {
  const TimeWindow next = clamped(window);
  if (next == window_) return;
  window_ = next;
  emit window_changed();
}

void ViewState::zoom(double factor, std::int64_t anchor_ns) {
  if (!(factor > 0) || !std::isfinite(factor)) return;
  const double length = static_cast<double>(window_.length_ns());
  const double anchor_fraction = (anchor_ns - window_.start_ns) / length;
  const double next_length = std::max(length * factor, static_cast<double>(kMinWindowNs));
  const auto start = static_cast<std::int64_t>(
      std::llround(static_cast<double>(anchor_ns) - anchor_fraction * next_length));
  set_window({start, start + static_cast<std::int64_t>(std::llround(next_length))});
}

void ViewState::pan(std::int64_t delta_ns) {
  set_window({window_.start_ns + delta_ns, window_.end_ns + delta_ns});
}

void ViewState::fit() {
  const TimeWindow next = clamped(extent_);
  if (next == window_) return;
  window_ = next;
  emit window_changed();
}

void ViewState::show_range(TimeWindow range) {
  if (range.end_ns < range.start_ns) std::swap(range.start_ns, range.end_ns);
  const std::int64_t margin = std::max<std::int64_t>(range.length_ns() / 10, kMinWindowNs);
  set_window({range.start_ns - margin, range.end_ns + margin});
  set_selection(range);
}

void ViewState::set_selection(std::optional<TimeWindow> selection) {
  if (selection && selection->end_ns < selection->start_ns)
    std::swap(selection->start_ns, selection->end_ns);
  if (selection == selection_) return;
  selection_ = selection;
  emit selection_changed();
}

void ViewState::set_selected_event(std::optional<EventRef> event) {
  if (event == selected_event_) return;
  selected_event_ = event;
  emit selected_event_changed();
}

void ViewState::set_name_filter(const QString& filter) {
  if (filter == name_filter_) return;
  name_filter_ = filter;
  emit name_filter_changed();
}

void ViewState::set_lane_count(int lanes) {
  lane_order_.resize(static_cast<std::size_t>(std::max(lanes, 0)));
  for (int i = 0; i < lanes; ++i) lane_order_[static_cast<std::size_t>(i)] = i;
  collapsed_.clear();
  emit lanes_changed();
}

void ViewState::add_lanes(int lanes) {
  const int known = static_cast<int>(lane_order_.size());
  if (lanes <= known) return;
  for (int lane = known; lane < lanes; ++lane) lane_order_.push_back(lane);
  emit lanes_changed();
}

void ViewState::move_lane(int lane, int to_position) {
  auto it = std::find(lane_order_.begin(), lane_order_.end(), lane);
  if (it == lane_order_.end()) return;
  lane_order_.erase(it);
  to_position = std::clamp(to_position, 0, static_cast<int>(lane_order_.size()));
  lane_order_.insert(lane_order_.begin() + to_position, lane);
  emit lanes_changed();
}

void ViewState::set_lane_collapsed(int lane, bool collapsed) {
  if (lane_collapsed(lane) == collapsed) return;
  if (collapsed)
    collapsed_.insert(lane);
  else
    collapsed_.erase(lane);
  emit lanes_changed();
}

}  // namespace parity::gui
