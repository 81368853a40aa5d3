// ViewState: the one state every view of a parity-view window obeys: the
// visible time window (zoom and pan), the selected time range, the selected
// event, the name filter, and the order and collapse state of the timeline's
// lanes. Views change it through its setters and redraw on its signals; none
// keeps a private copy.
#pragma once

#include <QObject>
#include <QString>
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

namespace parity::gui {

struct TimeWindow {
  std::int64_t start_ns = 0, end_ns = 0;
  std::int64_t length_ns() const { return end_ns - start_ns; }
  bool operator==(const TimeWindow&) const = default;
};

// An event on a timeline: which trace (0 for the first one opened), which
// lane and row of that trace's TimelineData, and its index in the row.
struct EventRef {
  int trace = 0;
  int lane = 0;
  int row = 0;
  std::int64_t index = 0;
  bool operator==(const EventRef&) const = default;
};

class ViewState : public QObject {
  Q_OBJECT

 public:
  // The shortest window zoom reaches: 100 ns across the view.
  static constexpr std::int64_t kMinWindowNs = 100;

  explicit ViewState(QObject* parent = nullptr);

  // The span of the loaded traces; fit() shows all of it. Setting it fits.
  void set_extent(TimeWindow extent);
  TimeWindow extent() const { return extent_; }

  TimeWindow window() const { return window_; }
  // Shows [start, end), kept inside the extent (plus a margin) and at least
  // kMinWindowNs long.
  void set_window(TimeWindow window);
  // factor < 1 zooms in; the time under `anchor_ns` stays where it is.
  void zoom(double factor, std::int64_t anchor_ns);
  void pan(std::int64_t delta_ns);
  void fit();
  // Shows `range` with a margin on both sides and selects it (a finding's
  // evidence, a search hit).
  void show_range(TimeWindow range);

  const std::optional<TimeWindow>& selection() const { return selection_; }
  void set_selection(std::optional<TimeWindow> selection);

  const std::optional<EventRef>& selected_event() const { return selected_event_; }
  void set_selected_event(std::optional<EventRef> event);

  // Case-insensitive substring filter on names (empty: everything).
  const QString& name_filter() const { return name_filter_; }
  void set_name_filter(const QString& filter);

  // Lanes are identified by their index in the trace's TimelineData; the
  // order is a permutation of those indices for trace 0 (the others follow it).
  const std::vector<int>& lane_order() const { return lane_order_; }
  void set_lane_count(int lanes);  // resets the order to 0..lanes-1, none collapsed
  void add_lanes(int lanes);  // grows to `lanes`, new ones last; order and collapse kept
  void move_lane(int lane, int to_position);
  bool lane_collapsed(int lane) const { return collapsed_.count(lane) != 0; }
  void set_lane_collapsed(int lane, bool collapsed);

 signals:
  void window_changed();
  void selection_changed();
  void selected_event_changed();
  void name_filter_changed();
  void lanes_changed();

 private:
  TimeWindow clamped(TimeWindow window) const;

  TimeWindow extent_{0, 1'000'000};
  TimeWindow window_{0, 1'000'000};
  std::optional<TimeWindow> selection_;
  std::optional<EventRef> selected_event_;
  QString name_filter_;
  std::vector<int> lane_order_;
  std::set<int> collapsed_;
};

}  // namespace parity::gui
