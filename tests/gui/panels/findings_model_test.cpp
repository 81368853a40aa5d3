// FindingsModel and locate_evidence: the rows are the analyzer's findings
// with severity colour, rank and details; a finding that names a step maps
// to that step's time range on its rank, one about the whole run to none.
#include "parity/gui/panels/findings_model.hpp"

#include <QAbstractItemModelTester>
#include <QColor>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>

#include "parity/gui/panels/finding_evidence.hpp"
#include "parity/gui/panels/item_roles.hpp"
#include "qt_test_main.hpp"
#include "report_fixture.hpp"
#include "small_trace.hpp"

using parity::analyzer::Finding;
using parity::analyzer::Thresholds;
using parity::gui::FindingsModel;
using parity::gui::kDetailRole;
using parity::gui::kSortRole;
using parity::gui::locate_evidence;
using parity::gui::TimeWindow;

namespace {

const Finding& finding(const panels_test::Report& report, const std::string& rule) {
  const auto it = std::find_if(report->findings.begin(), report->findings.end(),
                               [&](const Finding& f) { return f.rule == rule; });
  if (it == report->findings.end()) throw std::runtime_error("no " + rule + " finding");
  return *it;
}

int row_of(const panels_test::Report& report, const std::string& rule) {
  return static_cast<int>(&finding(report, rule) - report->findings.data());
}

}  // namespace

class FindingsModelTest : public QObject {
  Q_OBJECT

  QTemporaryDir small_dir_, synth_dir_;
  panels_test::Report small_, synth_;

 private slots:
  void initTestCase() {
    // The small trace's first step is 1.1x the median: a long-first-step
    // finding once the ratio that reports it is lowered.
    Thresholds first_step;
    first_step.first_step_info_ratio = 1.05;
    small_ = panels_test::small_trace_report(small_dir_.path().toStdString(), first_step);
    // Every jitter reported: the synthetic run names its slowest steps.
    Thresholds jitter;
    jitter.jitter_info_spread = 0;
    synth_ = panels_test::synth_report(synth_dir_.path().toStdString(),
                                       {.events = 60'000, .ranks = 2, .straggler_rank = 1}, jitter);
  }

  void passes_the_model_tester() {
    FindingsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.set_report(synth_);
    model.set_report(small_);
    model.set_report(nullptr);
    QCOMPARE(model.rowCount(), 0);
  }

  void rows_are_the_analyzers_findings() {
    FindingsModel model;
    model.set_report(synth_);
    QCOMPARE(model.rowCount(), static_cast<int>(synth_->findings.size()));
    for (int r = 0; r < model.rowCount(); ++r) {
      const Finding& f = synth_->findings[static_cast<std::size_t>(r)];
      QCOMPARE(model.index(r, FindingsModel::kRule).data().toString(),
               QString::fromStdString(f.rule));
      QCOMPARE(model.index(r, FindingsModel::kTitle).data().toString(),
               QString::fromStdString(f.title));
      QCOMPARE(model.index(r, FindingsModel::kSeverity).data(kSortRole).toInt(),
               static_cast<int>(f.severity));
      QCOMPARE(model.index(r, FindingsModel::kSeverity).data(Qt::DecorationRole).value<QColor>(),
               parity::gui::severity_colour(f.severity));
    }
    const int straggler = row_of(synth_, "straggler");
    QCOMPARE(model.index(straggler, FindingsModel::kSeverity).data().toString(),
             QStringLiteral("warning"));
    QCOMPARE(model.index(straggler, FindingsModel::kRank).data().toString(), QStringLiteral("1"));
    const QString details =
        model.index(straggler, FindingsModel::kTitle).data(kDetailRole).toString();
    for (const std::string& line : finding(synth_, "straggler").evidence)
      QVERIFY(details.contains(QString::fromStdString(line).toHtmlEscaped()));
    QVERIFY(details.contains(QStringLiteral("Next step")));
  }

  void first_step_finding_maps_to_step_zero() {
    const Finding& f = finding(small_, "long-first-step");
    const auto where = locate_evidence(f, *small_);
    QVERIFY(where.has_value());
    QCOMPARE(where->step, 0);
    QCOMPARE(where->rank, 0);
    // Step 0 starts at 10 ms and lasts 11 ms (small_trace.hpp).
    const std::int64_t start = small_trace::kFirstStepStart;
    QCOMPARE(where->range, (TimeWindow{start, start + 11 * small_trace::kMs}));

    FindingsModel model;
    model.set_report(small_);
    const int row = row_of(small_, "long-first-step");
    QVERIFY(model.evidence(row));
    QCOMPARE(model.evidence(row)->range, where->range);
    QVERIFY(model.index(row, 0)
                .data(kDetailRole)
                .toString()
                .contains(QStringLiteral("step 0 of rank 0")));
  }

  void jitter_finding_maps_to_the_slowest_step() {
    const Finding& f = finding(synth_, "step-jitter");
    const auto where = locate_evidence(f, *synth_);
    QVERIFY(where.has_value());
    QCOMPARE(where->rank, f.rank.value());
    const auto& steps = synth_->ranks[static_cast<std::size_t>(where->rank)].steps;
    const auto slowest = std::max_element(
        steps.steps.begin() + static_cast<std::ptrdiff_t>(steps.warmup_steps), steps.steps.end(),
        [](const auto& a, const auto& b) { return a.dur_ns < b.dur_ns; });
    QCOMPARE(where->step, slowest->step);
    QCOMPARE(where->range, (TimeWindow{slowest->start_ns, slowest->start_ns + slowest->dur_ns}));
  }

  void run_wide_findings_have_no_place() {
    QVERIFY(!locate_evidence(finding(synth_, "straggler"), *synth_));
    QVERIFY(!locate_evidence(finding(small_, "comm-tail"), *small_));
    FindingsModel model;
    model.set_report(small_);
    const int row = row_of(small_, "comm-tail");
    QVERIFY(!model.evidence(row));
    QVERIFY(model.index(row, 0)
                .data(kDetailRole)
                .toString()
                .contains(QStringLiteral("run as a whole")));
  }

  void a_step_the_rank_lacks_has_no_place() {
    Finding f = finding(small_, "long-first-step");
    f.evidence = {"first step 99: 1.00 s"};
    QVERIFY(!locate_evidence(f, *small_));
  }
};

PARITY_QT_TEST(FindingsModelTest, kCore)
#include "findings_model_test.moc"
