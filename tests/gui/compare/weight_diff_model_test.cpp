// WeightDiffModel and load_weight_diff on ResNet-18 checkpoints written by
// PyTorch, one under MindSpore's names with one planted change: the planted
// parameter is the only finding, first and highlighted, with the planted
// error, in the histogram's matching decade; sorting and filtering work
// through the model's roles; progress reaches the task and a cancel stops the
// diff; bad and truncated files are errors, not crashes.
#include "parity/gui/compare/weight_diff_model.hpp"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QFileInfo>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <memory>

#include "fixtures.hpp"
#include "parity/core/error.hpp"
#include "parity/gui/compare/weight_diff_loader.hpp"
#include "qt_test_main.hpp"

using parity::gui::ComparisonModel;
using parity::gui::TaskCancelled;
using parity::gui::TaskControl;
using parity::gui::WeightDiffModel;

namespace {

parity::analyzer::WeightDiff load(const QString& a, const QString& b,
                                  std::function<void(double)> report = {}) {
  auto cancelled = std::make_shared<std::atomic<bool>>(false);
  TaskControl control(cancelled, std::move(report));
  return parity::gui::load_weight_diff(a, b, control);
}

}  // namespace

class WeightDiffModelTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    const QString error = fixture::write_checkpoints(dir_.path());
    QVERIFY2(error.isEmpty(), qPrintable(error));
    a_ = dir_.filePath(QStringLiteral("a.safetensors"));
    b_ = dir_.filePath(QStringLiteral("b.safetensors"));
    model_ = std::make_unique<WeightDiffModel>(load(a_, b_));
  }

  void model_passes_the_tester() {
    QAbstractItemModelTester tester(model_.get(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model_->columnCount(), static_cast<int>(WeightDiffModel::kColumnCount));
  }

  void planted_parameter_is_the_only_finding() {
    const WeightDiffModel& m = *model_;
    QCOMPARE(m.rowCount(), 122);
    QList<int> findings;
    for (int row = 0; row < m.rowCount(); ++row)
      if (!m.index(row, 0).data(ComparisonModel::kAgreesRole).toBool()) findings << row;
    QCOMPARE(findings.size(), 1);
    const int row = findings.front();
    QCOMPARE(m.first_mismatch_row(), std::optional<int>(row));
    QCOMPARE(m.index(row, WeightDiffModel::kNameA).data().toString(),
             QLatin1String(fixture::kPerturbedParameter));
    QCOMPARE(m.index(row, WeightDiffModel::kNameB).data().toString(),
             QLatin1String(fixture::kPerturbedParameter));
    QCOMPARE(m.index(row, WeightDiffModel::kStatus).data().toString(), QStringLiteral("mismatch"));
    const double max_abs =
        m.index(row, WeightDiffModel::kMaxAbs).data(ComparisonModel::kSortRole).toDouble();
    QVERIFY2(std::abs(max_abs - fixture::kPerturbation) < 1e-6,
             qPrintable(QString::number(max_abs)));
    QCOMPARE(m.index(row, WeightDiffModel::kMaxAbs).data().toString(), QStringLiteral("0.5"));
    // Highlighted as the first mismatch; an agreeing row is not.
    QVERIFY(m.index(row, WeightDiffModel::kStatus).data(Qt::BackgroundRole).isValid());
    QVERIFY(!m.index(0, WeightDiffModel::kStatus).data(Qt::BackgroundRole).isValid());
    QVERIFY(
        m.summary().startsWith(QStringLiteral("DIFFER (1 findings): 101 equal, 1 mismatch, "
                                              "20 no counterpart")));
  }

  void unpaired_parameters_are_listed() {
    const WeightDiffModel& m = *model_;
    int unpaired = 0;
    for (int row = 0; row < m.rowCount(); ++row) {
      if (!m.index(row, WeightDiffModel::kNameA).data().toString().isEmpty()) continue;
      ++unpaired;
      QVERIFY(m.index(row, WeightDiffModel::kNameB)
                  .data()
                  .toString()
                  .endsWith(QStringLiteral("num_batches_tracked")));
      QCOMPARE(m.index(row, WeightDiffModel::kStatus).data().toString(),
               QStringLiteral("no counterpart"));
      QVERIFY(m.index(row, 0).data(ComparisonModel::kAgreesRole).toBool());
      QVERIFY(!m.error(row));
    }
    QCOMPARE(unpaired, 20);
  }

  void histogram_counts_every_compared_pair() {
    const auto h = model_->histogram();
    QCOMPARE(h.total(), 102u);
    QCOMPARE(h.exact, 101u);
    const int bar = h.bar_of(*model_->error(*model_->first_mismatch_row()));
    QCOMPARE(h.count(bar), 1u);
    QCOMPARE(h.label(bar), QStringLiteral("1e-01"));
  }

  void proxy_sorts_by_value_and_filters_by_name_and_status() {
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(model_.get());
    proxy.setSortRole(ComparisonModel::kSortRole);
    proxy.setFilterRole(ComparisonModel::kFilterRole);
    proxy.setFilterCaseSensitivity(Qt::CaseInsensitive);
    proxy.sort(WeightDiffModel::kMaxAbs, Qt::DescendingOrder);
    QCOMPARE(proxy.index(0, WeightDiffModel::kNameA).data().toString(),
             QLatin1String(fixture::kPerturbedParameter));
    proxy.setFilterFixedString(QStringLiteral("MISMATCH"));
    QCOMPARE(proxy.rowCount(), 1);
    // A's model zoo name and B's PyTorch name of the same parameter both match.
    proxy.setFilterFixedString(QStringLiteral("down_sample_layer"));
    const int by_a = proxy.rowCount();
    proxy.setFilterFixedString(QStringLiteral("downsample"));
    QVERIFY(by_a > 0);
    QCOMPARE(proxy.rowCount(), by_a + 3);  // and B's three num_batches_tracked
  }

  void progress_reaches_the_task_and_cancel_stops_the_diff() {
    QList<double> reported;
    load(a_, b_, [&](double fraction) { reported << fraction; });
    QCOMPARE(reported.front(), 0.0);
    QCOMPARE(reported.back(), 1.0);

    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    double last = 0;
    TaskControl control(cancelled, [&](double fraction) {
      last = fraction;
      if (fraction > 0) *cancelled = true;  // after the first pair
    });
    QVERIFY_THROWS_EXCEPTION(TaskCancelled, parity::gui::load_weight_diff(a_, b_, control));
    QVERIFY2(last < 0.5, qPrintable(QString::number(last)));
  }

  void bad_files_are_errors() {
    const QString text = dir_.filePath(QStringLiteral("notes.pth"));
    QFile file(text);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("not a checkpoint\n");
    file.close();
    QVERIFY_THROWS_EXCEPTION(parity::Error, load(text, b_));

    const QString truncated = dir_.filePath(QStringLiteral("truncated.safetensors"));
    QVERIFY(QFile::copy(b_, truncated));
    QVERIFY(QFile::resize(truncated, QFileInfo(b_).size() / 2));
    QVERIFY_THROWS_EXCEPTION(parity::Error, load(a_, truncated));

    QVERIFY_THROWS_EXCEPTION(parity::Error, load(a_, dir_.filePath(QStringLiteral("missing.pth"))));
  }

 private:
  QTemporaryDir dir_;
  QString a_, b_;
  std::unique_ptr<WeightDiffModel> model_;
};

PARITY_QT_TEST(WeightDiffModelTest, kCore)
#include "weight_diff_model_test.moc"
