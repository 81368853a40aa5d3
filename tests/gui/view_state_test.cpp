// ViewState: zoom keeps the anchor still, windows stay inside the extent's
// margin, selections are normalised, lanes reorder and collapse; and
// BackgroundTask delivers results, failures and cancels on the GUI thread,
// dropping stale ones.
#include "parity/gui/view_state.hpp"

#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <atomic>
#include <stdexcept>

#include "parity/gui/background_task.hpp"
#include "qt_test_main.hpp"

using parity::gui::BackgroundTask;
using parity::gui::TaskControl;
using parity::gui::TimeWindow;
using parity::gui::ViewState;

class ViewStateTest : public QObject {
  Q_OBJECT

 private slots:
  void extent_fits_window() {
    ViewState state;
    QSignalSpy spy(&state, &ViewState::window_changed);
    state.set_extent({1000, 1'001'000});
    QCOMPARE(state.window(), (TimeWindow{1000, 1'001'000}));
    QCOMPARE(spy.count(), 1);
  }

  void zoom_keeps_anchor_in_place() {
    ViewState state;
    state.set_extent({0, 1'000'000});
    const std::int64_t anchor = 250'000;
    state.zoom(0.1, anchor);
    QCOMPARE(state.window().length_ns(), 100'000);
    // The anchor was at 25% of the window and still is.
    QCOMPARE(anchor - state.window().start_ns, 25'000);
    // Six orders of magnitude down, the floor holds.
    for (int i = 0; i < 20; ++i) state.zoom(0.1, anchor);
    QCOMPARE(state.window().length_ns(), ViewState::kMinWindowNs);
    QVERIFY(state.window().start_ns <= anchor && anchor <= state.window().end_ns);
  }

  void pan_and_zoom_out_stay_near_extent() {
    ViewState state;
    state.set_extent({0, 1'000'000});
    state.pan(10'000'000);
    QCOMPARE(state.window().end_ns, 1'500'000);  // extent end + 50% margin
    state.zoom(1000, 0);
    QCOMPARE(state.window(), (TimeWindow{-500'000, 1'500'000}));
    state.fit();
    QCOMPARE(state.window(), (TimeWindow{0, 1'000'000}));
  }

  void show_range_selects_with_margin() {
    ViewState state;
    state.set_extent({0, 1'000'000});
    QSignalSpy spy(&state, &ViewState::selection_changed);
    state.show_range({600'000, 500'000});
    QCOMPARE(state.selection().value(), (TimeWindow{500'000, 600'000}));
    QCOMPARE(state.window(), (TimeWindow{490'000, 610'000}));
    QCOMPARE(spy.count(), 1);
    state.set_selection(TimeWindow{500'000, 600'000});  // unchanged: no signal
    QCOMPARE(spy.count(), 1);
  }

  void lanes_reorder_and_collapse() {
    ViewState state;
    state.set_lane_count(4);
    state.move_lane(3, 0);
    QCOMPARE(state.lane_order(), (std::vector<int>{3, 0, 1, 2}));
    state.move_lane(0, 99);
    QCOMPARE(state.lane_order(), (std::vector<int>{3, 1, 2, 0}));
    QSignalSpy spy(&state, &ViewState::lanes_changed);
    state.set_lane_collapsed(2, true);
    state.set_lane_collapsed(2, true);
    QVERIFY(state.lane_collapsed(2));
    QCOMPARE(spy.count(), 1);
  }

  void task_hands_over_result_on_gui_thread() {
    BackgroundTask task;
    QSignalSpy finished(&task, &BackgroundTask::finished);
    int result = 0;
    QThread* delivered_on = nullptr;
    task.start([&](TaskControl& control) -> std::function<void()> {
      control.progress(0.5);
      return [&] {
        result = 42;
        delivered_on = QThread::currentThread();
      };
    });
    QVERIFY(finished.wait(5000));
    QCOMPARE(result, 42);
    QCOMPARE(delivered_on, QThread::currentThread());
  }

  void task_reports_failure_and_cancel() {
    BackgroundTask task;
    QSignalSpy failed(&task, &BackgroundTask::failed);
    task.start([](TaskControl&) -> std::function<void()> {
      throw std::runtime_error("not a trace: x.db");
    });
    QVERIFY(failed.wait(5000));
    QCOMPARE(failed.at(0).at(0).toString(), QStringLiteral("not a trace: x.db"));

    QSignalSpy cancelled(&task, &BackgroundTask::cancelled);
    std::atomic<bool> started{false};
    task.start([&](TaskControl& control) -> std::function<void()> {
      started = true;
      for (;;) control.progress(0.1);
    });
    while (!started) QThread::msleep(1);
    task.cancel();
    QVERIFY(cancelled.wait(5000));
  }

  void restarted_task_drops_stale_result() {
    BackgroundTask task;
    QSignalSpy finished(&task, &BackgroundTask::finished);
    std::atomic<bool> release{false};
    int result = 0;
    task.start([&](TaskControl&) -> std::function<void()> {
      while (!release) QThread::msleep(1);
      return [&] { result = 1; };
    });
    release = true;
    task.start([&](TaskControl&) -> std::function<void()> { return [&] { result = 2; }; });
    QVERIFY(finished.wait(5000));
    QTest::qWait(50);
    QCOMPARE(result, 2);
    QCOMPARE(finished.count(), 1);
  }
};

PARITY_QT_TEST(ViewStateTest, kCore)
#include "view_state_test.moc"
