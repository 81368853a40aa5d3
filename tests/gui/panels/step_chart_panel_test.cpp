// StepChartPanel: "Analyzing…" until a report arrives; then one bar set per
// step part holding the analyzer's values in ms, warm-up bars marked, a
// click on a bar shows its step on the timeline, and a long run stays at
// most kMaxStepBars bars that follow the window.
#include "panels/step_chart_panel.hpp"

#include <QApplication>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChartView>
#include <QElapsedTimer>
#include <QLabel>
#include <QStackedBarSeries>
#include <QTemporaryDir>
#include <QTest>

#include "qt_test_main.hpp"
#include "report_fixture.hpp"
#include "small_trace.hpp"

using parity::analyzer::StepPart;
using parity::gui::StepChartPanel;
using parity::gui::TimeWindow;
using parity::gui::ViewState;

namespace {

QStackedBarSeries* series_of(const StepChartPanel& panel) {
  return qobject_cast<QStackedBarSeries*>(
      panel.findChild<QChartView*>()->chart()->series().value(0));
}

// A report of one rank whose run has `count` steps, 10 ms apart, each 8 ms
// of forward: a run far longer than the synthetic writer makes in a test's time.
panels_test::Report long_run(std::size_t count) {
  auto report = std::make_shared<parity::analyzer::ProfileReport>();
  auto& steps = report->ranks.emplace_back().steps;
  steps.warmup_steps = 1;
  for (std::size_t i = 0; i < count; ++i) {
    auto& step = steps.steps.emplace_back();
    step.step = static_cast<std::int64_t>(i);
    step.start_ns = static_cast<std::int64_t>(i) * 10'000'000;
    step.dur_ns = 8'000'000;
    step.parts[static_cast<std::size_t>(StepPart::kForward)] = step.dur_ns;
  }
  return report;
}

}  // namespace

class StepChartPanelTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  panels_test::Report small_;

 private slots:
  void initTestCase() { small_ = panels_test::small_trace_report(dir_.path().toStdString()); }

  void shows_analyzing_until_a_report_arrives() {
    ViewState state;
    StepChartPanel panel(state);
    auto* analyzing = panel.findChild<QLabel*>(QStringLiteral("analyzing"));
    QVERIFY(analyzing && analyzing->isVisibleTo(&panel));
    QCOMPARE(analyzing->text(), QStringLiteral("Analyzing…"));
    panel.set_report(small_);
    QVERIFY(!analyzing->isVisibleTo(&panel));
    QVERIFY(panel.findChild<QChartView*>()->isVisibleTo(&panel));
    panel.set_report(nullptr);  // a new analysis runs
    QVERIFY(analyzing->isVisibleTo(&panel));
  }

  void one_bar_set_per_part_with_the_analyzers_values() {
    ViewState state;
    StepChartPanel panel(state);
    panel.set_report(small_);
    const auto& steps = small_->focus_rank().steps;
    QStackedBarSeries* series = series_of(panel);
    QCOMPARE(series->count(), static_cast<int>(parity::analyzer::kStepParts));
    for (const StepPart part : parity::analyzer::kAllStepParts) {
      const QBarSet* set = series->barSets()[static_cast<int>(part)];
      QCOMPARE(set->label(), QString::fromUtf8(parity::analyzer::step_part_name(part)));
      QCOMPARE(set->count(), small_trace::kSteps);
      for (int s = 0; s < set->count(); ++s)
        QCOMPARE(set->at(s),
                 static_cast<double>(steps.steps[static_cast<std::size_t>(s)].part(part)) / 1e6);
      // The warm-up step (step 0) is marked; the steady ones are not.
      QCOMPARE(set->selectedBars(), QList<int>{0});
    }
    // The steady steps by hand: forward 3 ms, backward 4 ms.
    QCOMPARE(series->barSets()[static_cast<int>(StepPart::kBackward)]->at(2), 4.0);
    auto* axis = qobject_cast<QCategoryAxis*>(series->attachedAxes().value(0));
    QVERIFY(axis);
    QCOMPARE(axis->categoriesLabels(), (QStringList{"0", "1", "2", "3"}));
  }

  void clicking_a_bar_shows_its_step() {
    ViewState state;
    state.set_extent({0, 60 * small_trace::kMs});
    StepChartPanel panel(state);
    panel.set_report(small_);
    QStackedBarSeries* series = series_of(panel);
    emit series->clicked(2, series->barSets()[0]);
    const std::int64_t start = small_trace::kFirstStepStart + 2 * small_trace::kStepPeriod;
    const TimeWindow step{start, start + 10 * small_trace::kMs};
    QVERIFY(state.selection());
    QCOMPARE(*state.selection(), step);
    QVERIFY(state.window().start_ns <= step.start_ns && step.end_ns <= state.window().end_ns);
  }

  void a_long_run_stays_within_max_bars_and_follows_the_window() {
    ViewState state;
    state.set_extent({0, 5000 * 10'000'000LL});
    StepChartPanel panel(state);
    panel.resize(800, 400);
    QElapsedTimer timer;
    timer.start();
    panel.set_report(long_run(5000));
    QStackedBarSeries* series = series_of(panel);
    const int bars = series->barSets()[0]->count();
    QVERIFY(bars <= static_cast<int>(parity::gui::kMaxStepBars));
    QCOMPARE(static_cast<std::size_t>(bars), panel.bars().size());
    QVERIFY(panel.bars().front().steps() > 1);
    QCOMPARE(panel.bars().front().first, std::size_t{0});
    QCOMPARE(panel.bars().back().last, std::size_t{4999});
    QVERIFY(panel.findChild<QLabel*>(QStringLiteral("note"))
                ->text()
                .contains(QStringLiteral("mean of")));

    // Clicking a group zooms onto its steps, which the chart then draws one bar each.
    const auto group = panel.bars()[10];
    panel.activate_bar(10);
    QVERIFY(state.selection());
    QCOMPARE(*state.selection(), group.range);
    for (const auto& bar : panel.bars()) QCOMPARE(bar.steps(), std::size_t{1});
    QVERIFY(panel.bars().front().first <= group.first && group.last <= panel.bars().back().last);
    QCOMPARE(series->barSets()[0]->count(), static_cast<int>(panel.bars().size()));
    QVERIFY2(timer.elapsed() < 2000, "drawing a long run should take well under a second");
  }
};

PARITY_QT_TEST(StepChartPanelTest, kWidgets)
#include "step_chart_panel_test.moc"
