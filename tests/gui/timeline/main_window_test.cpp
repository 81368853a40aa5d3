// The real window, offscreen: a trace loads in the background and fills the
// timeline and (after the analysis) the panels; keys zoom, pan and fit; a
// click selects an event and shows its details with the launch it came
// from; a right-drag selects a range and fills the statistics; Ctrl+F
// search selects the next match; two traces align by step; a PyTorch
// profiler trace opens through its conversion; a bad file is reported as a
// message and the window stays usable.
#include "main_window.hpp"

#include <QFileInfo>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>

#include "parity/analyzer/synth/synth.hpp"
#include "qt_test_main.hpp"
#include "run_pair_fixture.hpp"
#include "timeline/timeline_widget.hpp"
#include "timeline_trace.hpp"

using namespace parity::gui;

namespace {

// Where the frame drew the first box of a row, in widget coordinates.
QPoint centre_of_first_box(const TimelineWidget& timeline, int lane, int row) {
  for (const DrawnBox& box : timeline.last_frame().boxes)
    if (box.lane == lane && box.row == row) return box.rect.center().toPoint();
  return {-1, -1};
}

}  // namespace

class MainWindowTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    known_ = dir_.filePath("known.db");
    timeline_trace::write(known_.toStdString());
  }

  void loads_then_analyzes() {
    MainWindow window;
    QSignalSpy loaded(&window, &MainWindow::traces_loaded);
    QSignalSpy analyzed(&window, &MainWindow::report_ready);
    window.show();
    window.open_traces({known_});
    QVERIFY(loaded.wait(10'000));
    QCOMPARE(window.traces().size(), std::size_t{1});
    QCOMPARE(window.state().window(), (TimeWindow{0, 3'000'000}));
    QVERIFY(window.status_text().contains(QStringLiteral("56 events")));
    QVERIFY(analyzed.count() == 1 || analyzed.wait(20'000));
    QVERIFY(window.status_text().contains(QStringLiteral("findings")));
  }

  void keys_zoom_pan_and_fit() {
    MainWindow window;
    QVERIFY(open_known(window));
    TimelineWidget* timeline = window.timeline();
    timeline->setFocus();
    const TimeWindow fitted = window.state().window();
    QTest::keyClick(timeline, Qt::Key_W);
    QVERIFY(window.state().window().length_ns() < fitted.length_ns());
    const TimeWindow zoomed = window.state().window();
    QTest::keyClick(timeline, Qt::Key_D);
    QCOMPARE(window.state().window().start_ns, zoomed.start_ns + zoomed.length_ns() / 10);
    QTest::keyClick(timeline, Qt::Key_F);
    QCOMPARE(window.state().window(), fitted);
  }

  void click_shows_details_and_drag_shows_statistics() {
    MainWindow window;
    QVERIFY(open_known(window));
    TimelineWidget* timeline = window.timeline();
    window.state().set_window({0, 100'000});  // the first two ops of step 0
    timeline->repaint();
    // The first kernel: lane 1 (the stream), row 0.
    const QPoint kernel = centre_of_first_box(*timeline, 1, 0);
    QVERIFY(kernel.x() > 0);
    QTest::mouseClick(timeline, Qt::LeftButton, {}, kernel);
    QVERIFY(window.state().selected_event().has_value());
    const QString details = window.details_text();
    QVERIFY2(details.contains(QStringLiteral("conv_kernel")), qPrintable(details));
    QVERIFY(details.contains(QStringLiteral("64 × 2 × 1")));        // its grid
    QVERIFY(details.contains(QStringLiteral("cudaLaunchKernel")));  // launched by
    timeline->repaint();
    QVERIFY(timeline->last_frame().flow.has_value());

    QSignalSpy statistics(&window, &MainWindow::range_statistics_ready);
    const int y = kernel.y();
    const int x0 = static_cast<int>(timeline->last_frame().x_of(0));
    const int x1 = static_cast<int>(timeline->last_frame().x_of(100'000));
    QTest::mousePress(timeline, Qt::RightButton, {}, QPoint(x0, y));
    QMouseEvent move(QEvent::MouseMove, QPointF(x1, y), timeline->mapToGlobal(QPointF(x1, y)),
                     Qt::NoButton, Qt::RightButton, Qt::NoModifier);
    QApplication::sendEvent(timeline, &move);
    QTest::mouseRelease(timeline, Qt::RightButton, {}, QPoint(x1, y));
    QVERIFY(window.state().selection().has_value());
    QVERIFY(statistics.wait(10'000));
    const auto& rows = window.range_statistics_model().statistics();
    const auto conv =
        std::find_if(rows.begin(), rows.end(), [](const auto& s) { return s.name == "conv"; });
    QVERIFY(conv != rows.end());
    QCOMPARE(conv->count, 1);  // op 0 [0, 50 µs) whole, op 1 starts at 100 µs: outside
  }

  void search_selects_next_match() {
    MainWindow window;
    QVERIFY(open_known(window));
    auto* search = window.findChild<QLineEdit*>(QStringLiteral("search"));
    QVERIFY(search);
    search->setText(QStringLiteral("overlap"));
    window.search_next();
    const auto selected = window.state().selected_event();
    QVERIFY(selected.has_value());
    QCOMPARE(selected->lane, 1);
    QCOMPARE(selected->row, 1);
  }

  void two_traces_align_by_step() {
    // Two synthetic runs: their steps start at different times.
    const auto a = dir_.filePath("a.db"), b = dir_.filePath("b.db");
    parity::analyzer::SynthOptions options;
    options.events = 20'000;
    parity::analyzer::write_synth_trace(options, a.toStdString());
    options.seed = 2;
    parity::analyzer::write_synth_trace(options, b.toStdString());
    MainWindow window;
    QSignalSpy loaded(&window, &MainWindow::traces_loaded);
    window.show();
    window.open_traces({a, b});
    QVERIFY(loaded.wait(20'000));
    const auto& views = window.timeline()->traces();
    QCOMPARE(views.size(), std::size_t{2});
    const StepSpan* first = views[0].data->step(views[0].data->steps.front().step);
    const StepSpan* second = views[1].data->step(first->step);
    QVERIFY(second);
    QCOMPARE(first->start_ns + views[0].offset_ns, second->start_ns + views[1].offset_ns);
  }

  void pytorch_profiler_trace_opens() {
    // The legacy profiler's layout: two steps, each an op holding another.
    const QString json = QString::fromStdString(
        panels_test::write_profiler_json(dir_.filePath("torch.json").toStdString()));
    MainWindow window;
    QSignalSpy loaded(&window, &MainWindow::traces_loaded);
    window.show();
    window.open_traces({json});
    QVERIFY(loaded.wait(20'000));
    QCOMPARE(window.traces().size(), std::size_t{1});
    QCOMPARE(window.traces()[0]->steps.size(), std::size_t{2});
    QVERIFY(window.status_text().contains(QStringLiteral("6 events")));
    QVERIFY(QFileInfo::exists(json + QStringLiteral(".parity.db")));
  }

  void bad_file_is_a_message() {
    const QString bad = dir_.filePath("bad.db");
    std::ofstream(bad.toStdString()) << "not a trace";
    MainWindow window;
    QSignalSpy failed(&window, &MainWindow::load_failed);
    window.show();
    window.open_traces({bad});
    QVERIFY(failed.wait(10'000));
    QVERIFY(failed.at(0).at(0).toString().contains(QStringLiteral("bad.db")));
    QVERIFY(window.status_text().contains(QStringLiteral("Could not open")));
    // Still usable: a good trace opens afterwards.
    QSignalSpy loaded(&window, &MainWindow::traces_loaded);
    window.open_traces({known_});
    QVERIFY(loaded.wait(10'000));
  }

 private:
  // Shows the window and loads the known trace into it.
  bool open_known(MainWindow& window) {
    QSignalSpy loaded(&window, &MainWindow::traces_loaded);
    window.show();
    window.open_traces({known_});
    return loaded.wait(10'000);
  }

  QTemporaryDir dir_;
  QString known_;
};

PARITY_QT_TEST(MainWindowTest, kWidgets)
#include "main_window_test.moc"
