// OpTablePanel: "Analyzing…" until a report arrives; tabs for ops, and for
// layers and kernels when the trace has them; rows sorted largest first;
// the line edit and ViewState's name filter follow each other and narrow the
// rows; a double-click on a row sets the filter to its name.
#include "panels/op_table_panel.hpp"

#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "parity/gui/panels/item_roles.hpp"
#include "qt_test_main.hpp"
#include "report_fixture.hpp"

using parity::gui::OpStatsModel;
using parity::gui::OpTablePanel;
using parity::gui::ViewState;
using Table = OpStatsModel::Table;

namespace {

QString name_in_row(QTableView* view, int row) {
  return view->model()->index(row, OpStatsModel::kNameColumn).data().toString();
}

}  // namespace

class OpTablePanelTest : public QObject {
  Q_OBJECT

  QTemporaryDir gpu_dir_, cpu_dir_;
  panels_test::Report gpu_, cpu_;

 private slots:
  void initTestCase() {
    gpu_ = panels_test::synth_report(gpu_dir_.path().toStdString(), {.events = 40'000});
    cpu_ =
        panels_test::synth_report(cpu_dir_.path().toStdString(), {.events = 40'000, .gpu = false});
  }

  void shows_analyzing_until_a_report_arrives() {
    ViewState state;
    OpTablePanel panel(state);
    auto* analyzing = panel.findChild<QLabel*>(QStringLiteral("analyzing"));
    QVERIFY(analyzing && analyzing->isVisibleTo(&panel));
    panel.set_report(gpu_);
    QVERIFY(!analyzing->isVisibleTo(&panel));
  }

  void tabs_for_the_tables_the_trace_has() {
    ViewState state;
    OpTablePanel panel(state);
    panel.set_report(gpu_);
    for (const Table table : {Table::kOps, Table::kLayers, Table::kKernels})
      QVERIFY(panel.tab_visible(table));
    QCOMPARE(panel.view(Table::kKernels)->model()->rowCount(),
             static_cast<int>(gpu_->focus_rank().ops.kernels.size()));
    panel.set_report(cpu_);  // a CPU trace has no kernels
    QVERIFY(cpu_->focus_rank().ops.kernels.empty());
    QVERIFY(panel.tab_visible(Table::kOps));
    QVERIFY(!panel.tab_visible(Table::kKernels));
  }

  void rows_start_largest_first() {
    ViewState state;
    OpTablePanel panel(state);
    panel.set_report(gpu_);
    const auto& ops = gpu_->focus_rank().ops.ops;
    QTableView* view = panel.view(Table::kOps);
    QCOMPARE(view->model()->rowCount(), static_cast<int>(ops.size()));
    QCOMPARE(name_in_row(view, 0), QString::fromStdString(ops.front().name));
    QCOMPARE(name_in_row(panel.view(Table::kLayers), 0),
             QString::fromStdString(gpu_->focus_rank().ops.layers.front().name));
  }

  void line_edit_and_view_state_filter_each_other() {
    ViewState state;
    OpTablePanel panel(state);
    panel.set_report(gpu_);
    QTableView* view = panel.view(Table::kOps);
    const int all = view->model()->rowCount();
    const QString name = name_in_row(view, 0);

    auto* edit = panel.findChild<QLineEdit*>();
    QTest::keyClicks(edit, name);
    QCOMPARE(state.name_filter(), name);
    QVERIFY(view->model()->rowCount() < all);
    for (int r = 0; r < view->model()->rowCount(); ++r)
      QVERIFY(name_in_row(view, r).contains(name, Qt::CaseInsensitive));

    state.set_name_filter({});  // another view clears it
    QCOMPARE(edit->text(), QString());
    QCOMPARE(view->model()->rowCount(), all);
  }

  void double_click_filters_by_the_rows_name() {
    ViewState state;
    OpTablePanel panel(state);
    panel.resize(900, 500);
    panel.set_report(gpu_);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QTableView* view = panel.view(Table::kOps);
    const QString name = name_in_row(view, 1);
    const QPoint at = view->visualRect(view->model()->index(1, 1)).center();
    // A double-click is a press, a release and a double-click event.
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, at);
    QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(state.name_filter(), name);
    QCOMPARE(panel.findChild<QLineEdit*>()->text(), name);
    QCOMPARE(name_in_row(view, 0), name);
  }
};

PARITY_QT_TEST(OpTablePanelTest, kWidgets)
#include "op_table_panel_test.moc"
