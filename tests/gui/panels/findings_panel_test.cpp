// FindingsPanel: "Analyzing…" until a report arrives; the findings listed;
// clicking one shows its details, and for one whose evidence is a step,
// that step's range on the timeline (ViewState's selection and window).
#include "panels/findings_panel.hpp"

#include <QApplication>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "parity/gui/panels/findings_model.hpp"
#include "qt_test_main.hpp"
#include "report_fixture.hpp"
#include "small_trace.hpp"

using parity::analyzer::Finding;
using parity::gui::FindingsModel;
using parity::gui::FindingsPanel;
using parity::gui::TimeWindow;
using parity::gui::ViewState;

namespace {

int row_of(const panels_test::Report& report, const std::string& rule) {
  const auto& findings = report->findings;
  return static_cast<int>(std::find_if(findings.begin(), findings.end(),
                                       [&](const Finding& f) { return f.rule == rule; }) -
                          findings.begin());
}

// The view shows the model through a sorting proxy.
const QSortFilterProxyModel* proxy_of(const FindingsPanel& panel) {
  return qobject_cast<const QSortFilterProxyModel*>(panel.view()->model());
}

}  // namespace

class FindingsPanelTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  panels_test::Report small_;

 private slots:
  void initTestCase() {
    parity::analyzer::Thresholds thresholds;
    thresholds.first_step_info_ratio = 1.05;  // the small trace's first step is 1.1x the median
    small_ = panels_test::small_trace_report(dir_.path().toStdString(), thresholds);
  }

  void shows_analyzing_until_a_report_arrives() {
    ViewState state;
    FindingsPanel panel(state);
    auto* analyzing = panel.findChild<QLabel*>(QStringLiteral("analyzing"));
    QVERIFY(analyzing && analyzing->isVisibleTo(&panel));
    panel.set_report(small_);
    QVERIFY(!analyzing->isVisibleTo(&panel));
    QCOMPARE(panel.view()->model()->rowCount(), static_cast<int>(small_->findings.size()));
  }

  void clicking_a_step_finding_shows_the_step() {
    ViewState state;
    state.set_extent({0, 60 * small_trace::kMs});
    FindingsPanel panel(state);
    panel.resize(900, 500);
    panel.set_report(small_);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));

    const int row = row_of(small_, "long-first-step");
    QTableView* view = panel.view();
    const QModelIndex index =
        proxy_of(panel)->mapFromSource(panel.model().index(row, FindingsModel::kTitle));
    QCOMPARE(index.data().toString(), QString::fromStdString(small_->findings[row].title));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(index).center());

    const TimeWindow step0{small_trace::kFirstStepStart,
                           small_trace::kFirstStepStart + 11 * small_trace::kMs};
    QVERIFY(state.selection());
    QCOMPARE(*state.selection(), step0);
    QVERIFY(state.window().start_ns <= step0.start_ns && step0.end_ns <= state.window().end_ns);
    QVERIFY(state.window().length_ns() < 20 * small_trace::kMs);
    QVERIFY(panel.details().contains(QString::fromStdString(small_->findings[row].next_step)));
  }

  void a_run_wide_finding_only_shows_details() {
    ViewState state;
    state.set_extent({0, 60 * small_trace::kMs});
    FindingsPanel panel(state);
    panel.set_report(small_);
    const int row = row_of(small_, "comm-tail");
    panel.activate_finding(row);
    QVERIFY(!state.selection());
    QCOMPARE(state.window(), (TimeWindow{0, 60 * small_trace::kMs}));
    QVERIFY(
        panel.details().contains(QString::fromStdString(small_->findings[row].evidence.front())));
    QCOMPARE(proxy_of(panel)->mapToSource(panel.view()->currentIndex()).row(), row);
  }
};

PARITY_QT_TEST(FindingsPanelTest, kWidgets)
#include "findings_panel_test.moc"
