// The real window, offscreen, with two runs open (`parity-view a.db b.db`):
// every panel shows both runs, with the analyzer's numbers for each: the
// step chart run B's bars under run A's, the op table diff-trace's rows, the
// findings both runs', the A | B diff dock diff-trace's report. A click on a
// B bar shows it in B's trace; a double-click on an op filters every view by
// its name. A PyTorch profiler trace works as run B. One run looks as before.
#include <QDockWidget>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "main_window.hpp"
#include "panels/diff_report_panel.hpp"
#include "panels/findings_panel.hpp"
#include "panels/op_table_panel.hpp"
#include "panels/step_chart_panel.hpp"
#include "parity/gui/panels/findings_model.hpp"
#include "parity/importers/trace/trace_import.hpp"
#include "qt_test_main.hpp"
#include "run_pair_fixture.hpp"
#include "timeline/timeline_widget.hpp"

using namespace parity::gui;
using parity::analyzer::ProfileReport;
using parity::analyzer::TraceDiff;

namespace {

ProfileReport report_of(const std::filesystem::path& trace) {
  parity::analyzer::ReportInputs inputs;
  inputs.traces = {trace};
  return parity::analyzer::build_profile_report(inputs);
}

// What `parity diff-trace a b` computes (analyzer/cli/diff_trace_command.cpp).
TraceDiff diff_trace(const std::filesystem::path& a, const std::filesystem::path& b) {
  const auto profiles = parity::analyzer::analyze_traces({a, b}, {});
  const bool swapped = profiles[0].path != a.string();
  return parity::analyzer::diff_traces(profiles[swapped ? 1 : 0], profiles[swapped ? 0 : 1],
                                       parity::analyzer::Thresholds{}.max_regression_pct);
}

QString path_text(const std::filesystem::path& path) { return QString::fromStdString(path); }

// Opens `paths` and waits for the analysis.
bool open_and_analyze(MainWindow& window, const QStringList& paths) {
  QSignalSpy analyzed(&window, &MainWindow::report_ready);
  window.show();
  window.open_traces(paths);
  return analyzed.wait(120'000);
}

QAbstractItemModel* diff_ops(const MainWindow& window) {
  return window.op_table()->diff_view(OpDiffModel::Table::kOps)->model();
}

}  // namespace

class TwoRunsWindowTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    runs_ = panels_test::write_two_runs(dir_.path().toStdString());
  }

  void step_chart_draws_both_runs_steps() {
    MainWindow window;
    QVERIFY(open_and_analyze(window, {path_text(runs_.a), path_text(runs_.b)}));
    const StepChartPanel& chart = *window.step_chart();
    QVERIFY(chart.shows_run_b());
    const ProfileReport a = report_of(runs_.a), b = report_of(runs_.b);
    const auto& a_steps = a.focus_rank().steps.steps;
    const auto& b_steps = b.focus_rank().steps.steps;
    QCOMPARE(chart.run_b_bars().size(), chart.bars().size());
    int compared = 0;
    for (std::size_t i = 0; i < chart.bars().size(); ++i) {
      const StepBar& bar = chart.bars()[i];
      QCOMPARE(bar.steps(), std::size_t{1});  // a short run: one bar per step
      const auto& step = a_steps[bar.first];
      const auto b_step = std::find_if(b_steps.begin(), b_steps.end(),
                                       [&](const auto& s) { return s.step == step.step; });
      QCOMPARE(chart.run_b_bars()[i].has_value(), b_step != b_steps.end());
      for (std::size_t p = 0; p < parity::analyzer::kStepParts; ++p) {
        QCOMPARE(bar.part_ms[p], static_cast<double>(step.parts[p]) / 1e6);
        if (b_step == b_steps.end()) continue;
        QCOMPARE(chart.run_b_bars()[i]->part_ms[p], static_cast<double>(b_step->parts[p]) / 1e6);
        ++compared;
      }
    }
    QVERIFY(compared > 0);
    // B is shorter: A's last steps have no B bar.
    QVERIFY(!chart.run_b_bars().back().has_value());

    // A click on a B bar shows that step in B's trace, where the timeline draws it.
    window.step_chart()->activate_bar(1, Run::kB);
    const std::int64_t offset = window.timeline()->traces()[1].offset_ns;
    const TimeWindow range = chart.run_b_bars()[1]->range;
    QCOMPARE(window.state().selection(),
             std::optional(TimeWindow{range.start_ns + offset, range.end_ns + offset}));
  }

  void op_table_findings_and_diff_say_what_diff_trace_says() {
    MainWindow window;
    QVERIFY(open_and_analyze(window, {path_text(runs_.a), path_text(runs_.b)}));
    const TraceDiff diff = diff_trace(runs_.a, runs_.b);
    OpTablePanel& ops = *window.op_table();
    QVERIFY(ops.diff_tab_visible(OpDiffModel::Table::kOps));
    QVERIFY(ops.diff_tab_visible(OpDiffModel::Table::kKernels));
    QVERIFY(!ops.tab_visible(OpStatsModel::Table::kOps));
    QVERIFY(ops.diff_view(OpDiffModel::Table::kOps)->isVisibleTo(&ops));
    QAbstractItemModel* rows = diff_ops(window);
    QCOMPARE(rows->rowCount(), static_cast<int>(diff.ops.size()));
    // In diff-trace's order until a header is clicked.
    for (int r = 0; r < rows->rowCount(); ++r)
      QCOMPARE(rows->index(r, OpDiffModel::kName).data().toString(),
               QString::fromStdString(diff.ops[static_cast<std::size_t>(r)].name));
    QCOMPARE(ops.diff_view(OpDiffModel::Table::kKernels)->model()->rowCount(),
             static_cast<int>(diff.kernels.size()));
    // A double-click on an op filters every view, the timeline's two traces too.
    QTableView* view = ops.diff_view(OpDiffModel::Table::kOps);
    emit view->doubleClicked(rows->index(0, OpDiffModel::kDifference));
    QCOMPARE(window.state().name_filter(), QString::fromStdString(diff.ops[0].name));

    const std::size_t findings =
        report_of(runs_.a).findings.size() + report_of(runs_.b).findings.size();
    QCOMPARE(window.findings()->model().rowCount(), static_cast<int>(findings));
    QCOMPARE(window.findings()->model().columnCount(), FindingsModel::kRun + 1);

    QVERIFY(window.run_diff_dock()->isVisible());
    const QString report = window.run_diff()->text();
    QVERIFY(report.contains(QStringLiteral("Parity trace diff")));
    QVERIFY(report.contains(QStringLiteral("A: ") + path_text(runs_.a)));
    QVERIFY(report.contains(diff.regression.regressed() ? QStringLiteral("REGRESSED")
                                                        : QStringLiteral("OK: all")));
    QVERIFY(report.contains(QString::fromStdString(diff.ops[0].name)));

    // One run again: the panels of one run, the diff dock hidden.
    QVERIFY(open_and_analyze(window, {path_text(runs_.a)}));
    QVERIFY(!window.step_chart()->shows_run_b());
    QVERIFY(ops.tab_visible(OpStatsModel::Table::kOps));
    QVERIFY(!ops.diff_tab_visible(OpDiffModel::Table::kOps));
    QVERIFY(ops.view(OpStatsModel::Table::kOps)->isVisibleTo(&ops));
    QCOMPARE(window.findings()->model().columnCount(), static_cast<int>(FindingsModel::kRun));
    QVERIFY(!window.run_diff_dock()->isVisible());
  }

  void a_pytorch_profiler_trace_is_run_b() {
    const auto json = panels_test::write_profiler_json(dir_.filePath("torch.json").toStdString());
    MainWindow window;
    QVERIFY(open_and_analyze(window, {path_text(runs_.a), path_text(json)}));
    QVERIFY(window.step_chart()->shows_run_b());
    const TraceDiff diff = diff_trace(runs_.a, parity::importers::trace::readable_trace(json));
    QAbstractItemModel* rows = diff_ops(window);
    QCOMPARE(rows->rowCount(), static_cast<int>(diff.ops.size()));
    const auto linear = rows->match(rows->index(0, OpDiffModel::kName), Qt::DisplayRole,
                                    QStringLiteral("aten::linear"), 1, Qt::MatchExactly);
    QCOMPARE(linear.size(), 1);
    QCOMPARE(linear[0].siblingAtColumn(OpDiffModel::kChange).data().toString(),
             QStringLiteral("new"));
    // The JSON's steps are numbered 1 and 2: B bars there, none elsewhere.
    const auto& chart = *window.step_chart();
    const auto& a_steps = window.step_chart()->report()->focus_rank().steps.steps;
    for (std::size_t i = 0; i < chart.bars().size(); ++i) {
      const std::int64_t step = a_steps[chart.bars()[i].first].step;
      QCOMPARE(chart.run_b_bars()[i].has_value(), step == 1 || step == 2);
    }
  }

 private:
  QTemporaryDir dir_;
  panels_test::TwoRuns runs_;
};

PARITY_QT_TEST(TwoRunsWindowTest, kWidgets)
#include "two_runs_window_test.moc"
