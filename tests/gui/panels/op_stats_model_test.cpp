// OpStatsModel and NameFilterProxy: the rows are the analyzer's operator,
// layer and kernel statistics with units, numeric columns sort as numbers,
// and ViewState's name filter narrows the rows.
#include "parity/gui/panels/op_stats_model.hpp"

#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QTest>

#include "parity/gui/panels/item_roles.hpp"
#include "parity/gui/panels/name_filter_proxy.hpp"
#include "qt_test_main.hpp"
#include "report_fixture.hpp"

using parity::analyzer::OpAnalysis;
using parity::gui::kSortRole;
using parity::gui::NameFilterProxy;
using parity::gui::OpStatsModel;
using parity::gui::ViewState;
using Table = OpStatsModel::Table;

namespace {

std::shared_ptr<const OpAnalysis> ops_of(const panels_test::Report& report) {
  return {report, &report->focus_rank().ops};
}

int column(const QAbstractItemModel& model, const QString& header) {
  for (int c = 0; c < model.columnCount(); ++c)
    if (model.headerData(c, Qt::Horizontal).toString() == header) return c;
  return -1;
}

QVariant cell(const QAbstractItemModel& model, int row, const QString& header,
              int role = Qt::DisplayRole) {
  return model.index(row, column(model, header)).data(role);
}

QStringList names(const QAbstractItemModel& model) {
  QStringList out;
  for (int r = 0; r < model.rowCount(); ++r)
    out << cell(model, r, QStringLiteral("Name")).toString();
  return out;
}

}  // namespace

class OpStatsModelTest : public QObject {
  Q_OBJECT

  QTemporaryDir small_dir_, synth_dir_;
  panels_test::Report small_, synth_;

 private slots:
  void initTestCase() {
    small_ = panels_test::small_trace_report(small_dir_.path().toStdString());
    synth_ = panels_test::synth_report(synth_dir_.path().toStdString(), {.events = 40'000});
  }

  void every_table_passes_the_model_tester() {
    for (const Table table : {Table::kOps, Table::kLayers, Table::kKernels}) {
      ViewState state;
      OpStatsModel model(table);
      NameFilterProxy proxy(state, OpStatsModel::kNameColumn);
      proxy.setSourceModel(&model);
      QAbstractItemModelTester model_tester(&model,
                                            QAbstractItemModelTester::FailureReportingMode::QtTest);
      QAbstractItemModelTester proxy_tester(&proxy,
                                            QAbstractItemModelTester::FailureReportingMode::QtTest);
      model.set_analysis(ops_of(synth_));
      QVERIFY(model.rowCount() > 0);
      proxy.sort(model.ranking_column(), Qt::DescendingOrder);
      state.set_name_filter(QStringLiteral("a"));
      state.set_name_filter({});
      model.set_analysis(nullptr);
      QCOMPARE(model.rowCount(), 0);
    }
  }

  void op_rows_are_the_analyzers_statistics() {
    OpStatsModel model(Table::kOps);
    model.set_analysis(ops_of(synth_));
    const auto& ops = synth_->focus_rank().ops.ops;
    QCOMPARE(model.rowCount(), static_cast<int>(ops.size()));
    for (int r = 0; r < model.rowCount(); ++r) {
      const auto& op = ops[static_cast<std::size_t>(r)];
      QCOMPARE(model.name(r), QString::fromStdString(op.name));
      QCOMPARE(cell(model, r, QStringLiteral("Calls"), kSortRole).toLongLong(), op.time.count);
      QCOMPARE(cell(model, r, QStringLiteral("Total"), kSortRole).toDouble(), op.time.total_ns);
      QCOMPARE(cell(model, r, QStringLiteral("p95"), kSortRole).toDouble(), op.time.p95_ns);
      QCOMPARE(cell(model, r, QStringLiteral("Step share"), kSortRole).toDouble(), op.step_share);
    }

    // The small trace's numbers, by hand: conv2d_backward runs 2.8 ms in each
    // of the 3 steady-state steps (the analyzer leaves the warm-up step out).
    model.set_analysis(ops_of(small_));
    QCOMPARE(names(model),
             (QStringList{"conv2d_backward", "conv2d", "linear", "linear_backward", "reorder"}));
    QCOMPARE(cell(model, 0, QStringLiteral("Calls")).toString(), QStringLiteral("3"));
    QCOMPARE(cell(model, 0, QStringLiteral("Total")).toString(), QStringLiteral("8.40 ms"));
    QCOMPARE(cell(model, 0, QStringLiteral("Mean")).toString(), QStringLiteral("2.80 ms"));
    QCOMPARE(cell(model, 0, QStringLiteral("Total"), Qt::TextAlignmentRole).value<Qt::Alignment>() &
                 Qt::AlignRight,
             Qt::AlignRight);
  }

  void layers_show_phase_and_self_time() {
    OpStatsModel model(Table::kLayers);
    model.set_analysis(ops_of(small_));
    QCOMPARE(model.headerData(model.ranking_column(), Qt::Horizontal).toString(),
             QStringLiteral("Self"));
    // By self time: conv1's backward (3 ms a steady step), then its forward (2 ms).
    QCOMPARE(model.name(0), QStringLiteral("conv1"));
    QCOMPARE(cell(model, 0, QStringLiteral("Phase")).toString(), QStringLiteral("backward"));
    QCOMPARE(cell(model, 0, QStringLiteral("Self"), kSortRole).toDouble(), 9e6);
    QCOMPARE(cell(model, 1, QStringLiteral("Phase")).toString(), QStringLiteral("forward"));
    QCOMPARE(cell(model, 1, QStringLiteral("Self")).toString(), QStringLiteral("6.00 ms"));
  }

  void kernels_show_device_share_and_launch_latency() {
    OpStatsModel model(Table::kKernels);
    model.set_analysis(ops_of(small_));
    const auto& kernels = small_->focus_rank().ops.kernels;
    QCOMPARE(model.rowCount(), static_cast<int>(kernels.size()));
    // Each kernel runs half its op: implicit_gemm_dgrad 1.4 ms a steady step,
    // launched through a 5 us call and started 20 us after it.
    QCOMPARE(model.name(0), QStringLiteral("implicit_gemm_dgrad"));
    QCOMPARE(cell(model, 0, QStringLiteral("Total")).toString(), QStringLiteral("4.20 ms"));
    QCOMPARE(cell(model, 0, QStringLiteral("Device share"), kSortRole).toDouble(),
             kernels[0].device_share);
    QCOMPARE(cell(model, 0, QStringLiteral("Launch")).toString(), QStringLiteral("5.00 us"));
    QCOMPARE(cell(model, 0, QStringLiteral("Queue")).toString(), QStringLiteral("20.0 us"));
  }

  void sorting_is_numeric() {
    ViewState state;
    OpStatsModel model(Table::kOps);
    NameFilterProxy proxy(state, OpStatsModel::kNameColumn);
    proxy.setSourceModel(&model);
    model.set_analysis(ops_of(synth_));
    const auto& ops = synth_->focus_rank().ops.ops;
    const auto largest = std::max_element(ops.begin(), ops.end(), [](const auto& a, const auto& b) {
      return a.time.total_ns < b.time.total_ns;
    });

    proxy.sort(column(proxy, QStringLiteral("Total")), Qt::DescendingOrder);
    QCOMPARE(cell(proxy, 0, QStringLiteral("Name")).toString(),
             QString::fromStdString(largest->name));
    for (const QString& header :
         {QStringLiteral("Total"), QStringLiteral("Calls"), QStringLiteral("p95")}) {
      proxy.sort(column(proxy, header), Qt::AscendingOrder);
      for (int r = 1; r < proxy.rowCount(); ++r)
        QVERIFY2(cell(proxy, r - 1, header, kSortRole).toDouble() <=
                     cell(proxy, r, header, kSortRole).toDouble(),
                 qPrintable(header));
    }
  }

  void view_state_filter_narrows_rows() {
    ViewState state;
    OpStatsModel model(Table::kOps);
    NameFilterProxy proxy(state, OpStatsModel::kNameColumn);
    proxy.setSourceModel(&model);
    model.set_analysis(ops_of(small_));
    proxy.sort(model.ranking_column(), Qt::DescendingOrder);
    QCOMPARE(proxy.rowCount(), 5);
    state.set_name_filter(QStringLiteral("CONV"));  // case-insensitive substring
    QCOMPARE(names(proxy), (QStringList{"conv2d_backward", "conv2d"}));
    state.set_name_filter(QStringLiteral("backward"));
    QCOMPARE(names(proxy), (QStringList{"conv2d_backward", "linear_backward"}));
    state.set_name_filter({});
    QCOMPARE(proxy.rowCount(), 5);

    // A proxy made while a filter is set starts filtered.
    state.set_name_filter(QStringLiteral("reorder"));
    NameFilterProxy later(state, OpStatsModel::kNameColumn);
    later.setSourceModel(&model);
    QCOMPARE(names(later), QStringList{"reorder"});
  }
};

PARITY_QT_TEST(OpStatsModelTest, kCore)
#include "op_stats_model_test.moc"
