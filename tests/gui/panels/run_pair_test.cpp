// Two runs in the panels' models: analyze_run_pair analyzes each run as
// `parity report` does and diffs them as `parity diff-trace` does; the op
// diff model shows diff-trace's rows and says what its report says; the
// findings model holds both runs' findings, labelled by run, and keeps its
// one-run columns with one run; a PyTorch profiler trace works as run B.
#include "parity/gui/panels/run_pair.hpp"

#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QTest>
#include <sstream>

#include "parity/gui/panels/findings_model.hpp"
#include "parity/gui/panels/item_roles.hpp"
#include "parity/gui/panels/op_diff_model.hpp"
#include "parity/importers/trace/trace_import.hpp"
#include "qt_test_main.hpp"
#include "run_pair_fixture.hpp"

using parity::analyzer::ProfileReport;
using parity::analyzer::RankProfile;
using parity::analyzer::TraceDiff;
using parity::gui::FindingsModel;
using parity::gui::kSortRole;
using parity::gui::OpDiffModel;
using parity::gui::Run;
using parity::gui::RunPair;

namespace {

// What `parity diff-trace a b` computes (analyzer/cli/diff_trace_command.cpp).
TraceDiff diff_trace(const std::filesystem::path& a, const std::filesystem::path& b) {
  const auto profiles = parity::analyzer::analyze_traces({a, b}, {});
  const bool swapped = profiles[0].path != a.string();
  return parity::analyzer::diff_traces(profiles[swapped ? 1 : 0], profiles[swapped ? 0 : 1],
                                       parity::analyzer::Thresholds{}.max_regression_pct);
}

ProfileReport report_of(const std::filesystem::path& trace) {
  parity::analyzer::ReportInputs inputs;
  inputs.traces = {trace};
  return parity::analyzer::build_profile_report(inputs);
}

void compare_steps(const RankProfile& shown, const RankProfile& expected) {
  QCOMPARE(shown.steps.steps.size(), expected.steps.steps.size());
  QCOMPARE(shown.steps.step_time.mean_ns, expected.steps.step_time.mean_ns);
  for (std::size_t i = 0; i < shown.steps.steps.size(); ++i)
    QCOMPARE(shown.steps.steps[i].parts, expected.steps.steps[i].parts);
}

// diff-trace's Markdown report of the diff.
std::string markdown(const TraceDiff& diff, std::size_t rows) {
  std::ostringstream out;
  parity::analyzer::write_trace_diff(diff, "md", out, rows);
  return out.str();
}

QString text(const OpDiffModel& model, int row, int column) {
  return model.index(row, column).data().toString();
}

}  // namespace

class RunPairTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    runs_ = panels_test::write_two_runs(dir_.path().toStdString());
    pair_ = std::make_shared<const RunPair>(parity::gui::analyze_run_pair(runs_.a, runs_.b));
  }

  void each_run_is_analyzed_as_report_and_diffed_as_diff_trace() {
    const ProfileReport a = report_of(runs_.a), b = report_of(runs_.b);
    compare_steps(pair_->a->focus_rank(), a.focus_rank());
    compare_steps(pair_->b->focus_rank(), b.focus_rank());
    QCOMPARE(pair_->a->findings.size(), a.findings.size());
    QCOMPARE(pair_->b->findings.size(), b.findings.size());
    // Different runs: B has fewer steps.
    QVERIFY(b.focus_rank().steps.steps.size() < a.focus_rank().steps.steps.size());
    QCOMPARE(&pair_->report(Run::kB), pair_->b.get());
    // Every number of the diff is diff-trace's.
    QCOMPARE(to_json(pair_->diff).dump(), to_json(diff_trace(runs_.a, runs_.b)).dump());
    QVERIFY(!pair_->diff.ops.empty());
    QVERIFY(!pair_->diff.kernels.empty());
  }

  void op_diff_model_shows_both_runs_as_diff_trace_does() {
    const std::shared_ptr<const TraceDiff> diff(pair_, &pair_->diff);
    const std::string report = markdown(*diff, diff->ops.size() + diff->kernels.size());
    for (const auto table : {OpDiffModel::Table::kOps, OpDiffModel::Table::kKernels}) {
      OpDiffModel model(table);
      QAbstractItemModelTester tester(&model,
                                      QAbstractItemModelTester::FailureReportingMode::QtTest);
      model.set_diff(diff);
      const auto& rows = table == OpDiffModel::Table::kOps ? diff->ops : diff->kernels;
      QCOMPARE(model.rowCount(), static_cast<int>(rows.size()));
      QCOMPARE(model.columnCount(), static_cast<int>(OpDiffModel::kColumns));
      for (int r = 0; r < model.rowCount(); ++r) {
        const auto& row = rows[static_cast<std::size_t>(r)];
        QCOMPARE(model.name(r), QString::fromStdString(row.name));
        const auto sort = [&](int column) { return model.index(r, column).data(kSortRole); };
        QCOMPARE(sort(OpDiffModel::kTimeA).toDouble(), row.a ? row.a->time_per_step_ns : -1.0);
        QCOMPARE(sort(OpDiffModel::kTimeB).toDouble(), row.b ? row.b->time_per_step_ns : -1.0);
        QCOMPARE(sort(OpDiffModel::kCallsA).toDouble(), row.a ? row.a->calls_per_step : -1.0);
        QCOMPARE(sort(OpDiffModel::kCallsB).toDouble(), row.b ? row.b->calls_per_step : -1.0);
        QCOMPARE(sort(OpDiffModel::kDifference).toDouble(), row.delta_per_step_ns());
        // The row reads as diff-trace's report prints it.
        const auto line_start = report.find("| " + row.name + " |");
        QVERIFY2(line_start != std::string::npos, row.name.c_str());
        const QString line = QString::fromStdString(
            report.substr(line_start, report.find('\n', line_start) - line_start));
        const QStringList cells = line.split(QLatin1Char('|'), Qt::SkipEmptyParts);
        QCOMPARE(cells.size(), static_cast<int>(OpDiffModel::kColumns));
        for (int c = 0; c < OpDiffModel::kColumns; ++c)
          QCOMPARE(text(model, r, c), cells[c].trimmed());
      }
    }
  }

  void findings_of_both_runs_are_labelled_by_run() {
    FindingsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.set_run_pair(pair_);
    const auto& a = pair_->a->findings;
    const auto& b = pair_->b->findings;
    QVERIFY(!a.empty() && !b.empty());
    QCOMPARE(model.rowCount(), static_cast<int>(a.size() + b.size()));
    QCOMPARE(model.columnCount(), FindingsModel::kRun + 1);
    QCOMPARE(model.headerData(FindingsModel::kRun, Qt::Horizontal).toString(),
             QStringLiteral("Run"));
    for (int r = 0; r < model.rowCount(); ++r) {
      const bool in_a = r < static_cast<int>(a.size());
      const auto& expected =
          in_a ? a[static_cast<std::size_t>(r)] : b[static_cast<std::size_t>(r) - a.size()];
      QCOMPARE(model.run(r), in_a ? Run::kA : Run::kB);
      QCOMPARE(model.index(r, FindingsModel::kRun).data().toString(),
               in_a ? QStringLiteral("A") : QStringLiteral("B"));
      QCOMPARE(model.index(r, FindingsModel::kTitle).data().toString(),
               QString::fromStdString(expected.title));
      const QString details = model.index(r, 0).data(parity::gui::kDetailRole).toString();
      QVERIFY(details.contains(QString::fromStdString((in_a ? runs_.a : runs_.b).string())));
    }
    // Back to one run: its findings, and the columns of one run.
    model.set_report(pair_->a);
    QCOMPARE(model.rowCount(), static_cast<int>(a.size()));
    QCOMPARE(model.columnCount(), static_cast<int>(FindingsModel::kRun));
    QCOMPARE(model.run(0), Run::kA);
  }

  void a_pytorch_profiler_trace_is_a_second_run() {
    const auto json = panels_test::write_profiler_json(dir_.filePath("torch.json").toStdString());
    const auto readable = parity::importers::trace::readable_trace(json);
    const RunPair pair = parity::gui::analyze_run_pair(runs_.a, readable);
    QCOMPARE(pair.diff.b_steps, std::int64_t{2});
    QCOMPARE(to_json(pair.diff).dump(), to_json(diff_trace(runs_.a, readable)).dump());
    OpDiffModel model(OpDiffModel::Table::kOps);
    model.set_diff(std::make_shared<const TraceDiff>(pair.diff));
    int linear = -1;
    for (int r = 0; r < model.rowCount(); ++r)
      if (model.name(r) == QStringLiteral("aten::linear")) linear = r;
    QVERIFY(linear >= 0);
    QCOMPARE(text(model, linear, OpDiffModel::kCallsA), QStringLiteral("-"));
    QCOMPARE(text(model, linear, OpDiffModel::kChange), QStringLiteral("new"));
    QCOMPARE(model.index(linear, OpDiffModel::kCallsB).data(kSortRole).toDouble(), 1.0);
  }

 private:
  QTemporaryDir dir_;
  panels_test::TwoRuns runs_;
  std::shared_ptr<const RunPair> pair_;
};

PARITY_QT_TEST(RunPairTest, kCore)
#include "run_pair_test.moc"
