// The timeline's level of detail, checked structurally: at three zoom levels
// every event in view is in exactly one box of its row (none hidden, none
// twice), folds hold only events narrower than the fold width, boxes of a row
// do not overlap; the painter draws the boxes where the frame says; the
// ruler, the selection and the launch -> kernel arrow are placed right.
#include "parity/gui/timeline/timeline_layout.hpp"

#include <QImage>
#include <QPainter>
#include <QTemporaryDir>
#include <QTest>
#include <random>

#include "parity/gui/timeline/timeline_loader.hpp"
#include "parity/gui/timeline/timeline_painter.hpp"
#include "qt_test_main.hpp"
#include "timeline_trace.hpp"

using namespace parity::gui;

namespace {

// A row of `count` disjoint events: mostly tiny, a few long, random gaps.
EventRow random_row(std::size_t count, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> coin(0, 99);
  std::exponential_distribution<double> tiny(1.0 / 2'000), gap(1.0 / 1'000);
  EventRow row;
  std::int64_t t = 0;
  for (std::size_t i = 0; i < count; ++i) {
    t += static_cast<std::int64_t>(gap(random));
    const auto length = coin(random) < 3 ? 5'000'000 + coin(random) * 10'000
                                         : static_cast<std::int64_t>(tiny(random));
    row.starts.push_back(t);
    row.ends.push_back(t + length);
    row.names.push_back(static_cast<std::uint32_t>(i % 7));
    t += length;
  }
  return row;
}

struct Fold {
  std::size_t first, count;
  std::int64_t start, end;
};

std::vector<Fold> folds_of(const EventRow& row, TimeWindow window, double ns_per_px, double fold_px) {
  std::vector<Fold> out;
  fold_row(row, 0, window, ns_per_px, fold_px,
           [&](std::size_t first, std::size_t count, std::int64_t start, std::int64_t end) {
             out.push_back({first, count, start, end});
           });
  return out;
}

// Events of the row in view, counted the naive way.
std::size_t visible_events(const EventRow& row, TimeWindow window, std::size_t& first) {
  std::size_t count = 0;
  first = row.size();
  for (std::size_t i = 0; i < row.size(); ++i)
    if (row.ends[i] >= window.start_ns && row.starts[i] < window.end_ns) {
      if (count == 0) first = i;
      ++count;
    }
  return count;
}

}  // namespace

class TimelineLayoutTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    const auto path = std::filesystem::path(dir_.path().toStdString()) / "known.db";
    timeline_trace::write(path);
    known_ = load_timeline(path);
  }

  void folds_cover_every_visible_event_once_at_each_zoom() {
    const EventRow row = random_row(200'000, 7);
    const std::int64_t end = row.ends.back();
    const double fold_px = 3;
    // Whole trace (about 300 ms in 1000 px), a 1/100 slice, a 1/100000 slice.
    for (const std::int64_t length : {end, end / 100, end / 100'000}) {
      const TimeWindow window{end / 3, end / 3 + length};
      const double ns_per_px = static_cast<double>(length) / 1000.0;
      const auto folds = folds_of(row, window, ns_per_px, fold_px);
      std::size_t first = 0;
      const std::size_t expected = visible_events(row, window, first);
      std::size_t covered = 0, next = first;
      for (const Fold& fold : folds) {
        QCOMPARE(fold.first, next);  // contiguous: nothing skipped, nothing twice
        next = fold.first + fold.count;
        covered += fold.count;
        QCOMPARE(fold.start, row.starts[fold.first]);
        QCOMPARE(fold.end, row.ends[fold.first + fold.count - 1]);
        if (fold.count > 1)
          for (std::size_t i = fold.first; i < next; ++i)
            QVERIFY(static_cast<double>(row.ends[i] - row.starts[i]) < fold_px * ns_per_px + 1);
      }
      QCOMPARE(covered, expected);
      // Bounded work: never more boxes than the pixels allow, plus the long events.
      QVERIFY(folds.size() <= 2 * 1000 / static_cast<std::size_t>(fold_px) + 2 * 100);
    }
  }

  void zoomed_in_far_enough_nothing_folds() {
    const EventRow row = random_row(5'000, 3);
    const TimeWindow window{row.starts[100], row.starts[100] + 2'000};
    for (const Fold& fold : folds_of(row, window, 2'000 / 1000.0, 3)) {
      // 2 ns a pixel: only events under 6 ns may fold.
      if (fold.count > 1) QVERIFY(row.ends[fold.first + fold.count - 1] - row.starts[fold.first] < 100);
    }
  }

  void frame_of_known_trace_at_three_zoom_levels() {
    const TimelineData& data = known_;
    ViewState state;
    state.set_extent(data.extent);
    state.set_lane_count(static_cast<int>(data.lanes.size()));
    const std::vector<TraceView> traces{{&data, 0, "known"}};
    const QSize size(1200, 800);  // 1000 px of time axis after the 200 px header

    auto boxes_in = [](const Frame& frame, int lane, int row) {
      std::vector<DrawnBox> out;
      for (const DrawnBox& box : frame.boxes)
        if (box.lane == lane && box.row == row) out.push_back(box);
      return out;
    };

    // 1. All 3 ms in 1000 px: 3 µs a pixel, ops are 17 px boxes of their own.
    Frame whole = layout_timeline(traces, state, size);
    QCOMPARE(boxes_in(whole, 0, 0).size(), std::size_t{3});   // the steps
    QCOMPARE(boxes_in(whole, 0, 2).size(), std::size_t{12});  // the ops
    for (const DrawnBox& op : boxes_in(whole, 0, 2)) QVERIFY(!op.is_fold());
    QCOMPARE(whole.lanes.size(), data.lanes.size());
    QVERIFY(!whole.ticks.empty());
    QCOMPARE(whole.ticks.front().label, QStringLiteral("0 ns"));

    // 2. Zoomed out as far as it goes (the window is clamped to the extent
    // plus half of it each side: 6 ms, 6 µs a pixel) with 40 px folds
    // (240 µs): ops 0 and 1 of a step end within 240 µs of op 0 and fold;
    // op 2 starts 50 µs (8 px) after op 1 ends, a visible gap, so it starts
    // the next fold, with op 3.
    state.zoom(100, 0);
    QCOMPARE(state.window(), (TimeWindow{-1'500'000, 4'500'000}));
    LayoutMetrics coarse;
    coarse.fold_px = 40;
    Frame folded = layout_timeline(traces, state, size, 0, coarse);
    const auto ops = boxes_in(folded, 0, 2);
    std::int64_t ops_counted = 0;
    for (const DrawnBox& box : ops) ops_counted += box.count;
    QCOMPARE(ops_counted, 12);
    QCOMPARE(ops.size(), std::size_t{6});
    for (const DrawnBox& box : ops) QCOMPARE(box.count, 2);

    // 3. Zoomed in on the first op (50 µs): one op box, labelled, and the
    // launch inside it with its kernel joined by the flow arrow when selected.
    state.set_window({0, 60'000});
    state.set_selected_event(EventRef{0, 0, 3, 0});  // the first launch
    Frame close = layout_timeline(traces, state, size);
    const auto op = boxes_in(close, 0, 2);
    QCOMPARE(op.size(), std::size_t{1});
    QCOMPARE(op[0].rect.left(), 200.0);
    QVERIFY(std::abs(op[0].rect.width() - 50'000 / 60.0) < 1);
    QVERIFY(close.selected_rect.has_value());
    QVERIFY(close.flow.has_value());
    QVERIFY(std::abs(close.flow->first.x() - (200 + 10'000 / 60.0)) < 1);   // launch at 10 µs
    QVERIFY(std::abs(close.flow->second.x() - (200 + 30'000 / 60.0)) < 1);  // kernel at 30 µs
    QVERIFY(close.flow->second.y() > close.flow->first.y());                // stream lane below

    // The painter draws each box where the frame put it, in its name's colour.
    QImage image(size, QImage::Format_RGB32);
    QPainter painter(&image);
    paint_timeline(painter, close, traces);
    painter.end();
    const QPointF inside = op[0].rect.center() + QPointF(op[0].rect.width() / 3, 0);
    QCOMPARE(image.pixelColor(inside.toPoint()).rgb(), colour_of_name("conv").rgb());
  }

  void collapsed_lane_and_filter() {
    const TimelineData& data = known_;
    ViewState state;
    state.set_extent(data.extent);
    state.set_lane_count(static_cast<int>(data.lanes.size()));
    const std::vector<TraceView> traces{{&data, 0, "known"}};
    state.set_lane_collapsed(0, true);
    state.move_lane(1, 0);  // the GPU stream first
    state.set_name_filter(QStringLiteral("OVERLAP"));
    const Frame frame = layout_timeline(traces, state, QSize(1200, 800));
    QCOMPARE(frame.lanes[0].lane, 1);
    for (const DrawnBox& box : frame.boxes) {
      QVERIFY(box.lane != 0);  // collapsed: no rows drawn
      if (box.lane == 1 && box.row == 1) QVERIFY(!box.dimmed);  // overlap_kernel matches
      if (box.lane == 1 && box.row == 0 && !box.is_fold()) QVERIFY(box.dimmed);
    }
  }
 private:
  QTemporaryDir dir_;
  TimelineData known_;
};

PARITY_QT_TEST(TimelineLayoutTest, kWidgets)
#include "timeline_layout_test.moc"
