// TensorCompareModel and load_tensor_comparison on dumps written by
// dump_reference.py (PyTorch) from a ResNet-18, with one weight planted in A
// or a different learning rate, and on plain .npy directories: the first
// mismatch is the first record the planted weight feeds, or step 0's update,
// highlighted, with every row before it matching; the first NaN/Inf is found
// apart from the mismatches; the histogram counts every compared pair; a
// cancel stops the comparison; a missing dump is an error.
#include "parity/gui/compare/tensor_compare_model.hpp"

#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>

#include "fixtures.hpp"
#include "parity/core/error.hpp"
#include "parity/gui/compare/tensor_compare_loader.hpp"
#include "qt_test_main.hpp"

using parity::gui::ComparisonModel;
using parity::gui::TaskCancelled;
using parity::gui::TaskControl;
using parity::gui::TensorCompareModel;

namespace {

parity::gui::TensorComparison load(const QString& a, const QString& b) {
  TaskControl control(std::make_shared<std::atomic<bool>>(false), {});
  return parity::gui::load_tensor_comparison(a, b, control);
}

}  // namespace

class TensorCompareModelTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QVERIFY(QDir(dir_.path()).mkpath(QStringLiteral("dumps")));
    QVERIFY(QDir(dir_.path()).mkpath(QStringLiteral("npy")));
    QVERIFY(QDir(dir_.path()).mkpath(QStringLiteral("lr")));
    QString error = fixture::write_dumps(dir_.filePath(QStringLiteral("dumps")));
    QVERIFY2(error.isEmpty(), qPrintable(error));
    error = fixture::write_npy_dirs(dir_.filePath(QStringLiteral("npy")));
    QVERIFY2(error.isEmpty(), qPrintable(error));
    error = fixture::write_lr_dumps(dir_.filePath(QStringLiteral("lr")));
    QVERIFY2(error.isEmpty(), qPrintable(error));
    dumps_ = std::make_unique<TensorCompareModel>(
        load(dir_.filePath(QStringLiteral("dumps/a")), dir_.filePath(QStringLiteral("dumps/b"))));
    npy_ = std::make_unique<TensorCompareModel>(
        load(dir_.filePath(QStringLiteral("npy/a")), dir_.filePath(QStringLiteral("npy/b"))));
  }

  void models_pass_the_tester() {
    for (TensorCompareModel* model : {dumps_.get(), npy_.get()}) {
      QAbstractItemModelTester tester(model,
                                      QAbstractItemModelTester::FailureReportingMode::QtTest);
      QCOMPARE(model->columnCount(), static_cast<int>(TensorCompareModel::kColumnCount));
    }
  }

  void first_mismatch_is_the_first_record_the_planted_weight_feeds() {
    const TensorCompareModel& m = *dumps_;
    QCOMPARE(m.rowCount(), 53);
    int divergent = -1;
    for (int row = 0; row < m.rowCount() && divergent < 0; ++row)
      if (m.index(row, TensorCompareModel::kRecord).data().toString() ==
              QLatin1String(fixture::kDivergentRecord) &&
          m.index(row, TensorCompareModel::kRole).data().toString() == QStringLiteral("output"))
        divergent = row;
    QVERIFY(divergent > 0);
    QCOMPARE(m.first_mismatch_row(), std::optional<int>(divergent));
    QCOMPARE(m.comparison().comparison.first_forward, std::optional<std::size_t>(divergent));
    for (int row = 0; row < divergent; ++row) {
      QVERIFY(m.index(row, 0).data(ComparisonModel::kAgreesRole).toBool());
      QCOMPARE(m.index(row, TensorCompareModel::kStatus).data().toString(),
               QStringLiteral("match"));
    }
    QVERIFY(!m.index(divergent, 0).data(ComparisonModel::kAgreesRole).toBool());
    QVERIFY(m.index(divergent, TensorCompareModel::kCheck)
                .data()
                .toString()
                .startsWith(QStringLiteral("allclose: ")));
    QVERIFY(m.index(divergent, 0).data(Qt::BackgroundRole) !=
            m.index(divergent + 1, 0).data(Qt::BackgroundRole));
    QVERIFY(
        m.summary().contains(QStringLiteral("first mismatch: forward: step 0 forward %1 (output)")
                                 .arg(QLatin1String(fixture::kDivergentRecord))));
    QVERIFY(!m.first_nonfinite_row());
    // Every record before it is identical; after it, the downsample branch
    // does not read the planted weight and stays identical too.
    for (int row = 0; row < divergent; ++row) QCOMPARE(m.error(row), std::optional<double>(0));
    int downsample = 0;
    for (int row = divergent; row < m.rowCount(); ++row)
      if (m.index(row, TensorCompareModel::kRecord)
              .data()
              .toString()
              .startsWith(QStringLiteral("layer2.0.downsample"))) {
        QCOMPARE(m.error(row), std::optional<double>(0));
        ++downsample;
      }
    QCOMPARE(downsample, 2);
    const auto h = m.histogram();
    QCOMPARE(h.total(), 53u);
    QCOMPARE(h.exact, static_cast<std::size_t>(divergent + downsample));
    QVERIFY(*m.error(divergent) > 0);
    QVERIFY(h.count(h.bar_of(*m.error(divergent))) > 0);
  }

  void an_update_before_the_next_forward_is_the_first_mismatch() {
    const TensorCompareModel m(
        load(dir_.filePath(QStringLiteral("lr/a")), dir_.filePath(QStringLiteral("lr/b"))));
    const auto& c = m.comparison().comparison;
    const int first = m.first_mismatch_row().value_or(-1);
    QVERIFY(first > 0);
    QCOMPARE(c.first_update, std::optional<std::size_t>(first));
    const auto& record = c.records_a[*c.diffs[static_cast<std::size_t>(first)].a];
    QCOMPARE(record.step, 0);
    QCOMPARE(record.role, std::string("param_after"));
    // The analyzer's first forward mismatch comes later, in step 1.
    QVERIFY(c.first_forward > c.first_update);
    QCOMPARE(c.records_a[*c.diffs[*c.first_forward].a].step, 1);
    for (int row = 0; row < first; ++row)
      QVERIFY(m.index(row, 0).data(ComparisonModel::kAgreesRole).toBool());
    QVERIFY(m.summary().contains(
        QStringLiteral("first divergence in execution order: step 0 update %1 (param_after)")
            .arg(QString::fromStdString(record.name))));
  }

  void a_record_missing_before_any_mismatch_is_the_first_divergence() {
    // B: A's dump (dumps/a) without the record of layer1.0.conv2's output,
    // so the first divergence is structural and comes before the planted
    // weight's first mismatch.
    namespace fs = std::filesystem;
    const fs::path a = dir_.filePath(QStringLiteral("dumps/a")).toStdString();
    const fs::path b = dir_.filePath(QStringLiteral("missing")).toStdString();
    fs::create_directories(b);
    fs::create_directory_symlink(a / "tensors", b / "tensors");
    std::ifstream in(a / "manifest.jsonl");
    std::ofstream out(b / "manifest.jsonl");
    int dropped = 0;
    for (std::string line; std::getline(in, line);) {
      if (line.find(R"("name":"layer1.0.conv2")") != std::string::npos &&
          line.find(R"("role":"output")") != std::string::npos) {
        ++dropped;
        continue;
      }
      out << line << '\n';
    }
    out.close();
    QCOMPARE(dropped, 1);
    const TensorCompareModel m(load(QString::fromStdString(a.string()),
                                    QString::fromStdString(b.string())));
    const int first = m.first_mismatch_row().value_or(-1);
    QVERIFY(first >= 0);
    QCOMPARE(m.index(first, TensorCompareModel::kRecord).data().toString(),
             QStringLiteral("layer1.0.conv2"));
    QCOMPARE(m.index(first, TensorCompareModel::kStatus).data().toString(),
             QStringLiteral("only in A"));
    // A finding, highlighted as the first divergence, its check and tooltip the structure's.
    QVERIFY(!m.index(first, 0).data(ComparisonModel::kAgreesRole).toBool());
    QVERIFY(m.index(first, 0).data(Qt::BackgroundRole) !=
            m.index(first + 1, 0).data(Qt::BackgroundRole));
    QCOMPARE(m.index(first, TensorCompareModel::kCheck).data().toString(),
             QStringLiteral("structure: missing in B"));
    const QString tip = m.index(first, 0).data(Qt::ToolTipRole).toString();
    QVERIFY(tip.contains(
        QStringLiteral("structure: B has no record for step 0 forward layer1.0.conv2 output")));
    QVERIFY(tip.contains(QStringLiteral("the first divergence in execution order")));
    QVERIFY(m.summary().startsWith(QStringLiteral("FAIL")));
    QVERIFY(m.summary().contains(QStringLiteral("first mismatch: forward: structure: B has no record")));
  }

  void plain_directories_mark_first_mismatch_and_first_nonfinite() {
    const TensorCompareModel& m = *npy_;
    QCOMPARE(m.rowCount(), 7);
    QCOMPARE(m.first_mismatch_row(), std::optional<int>(2));
    QCOMPARE(m.first_nonfinite_row(), std::optional<int>(3));
    QCOMPARE(m.index(3, TensorCompareModel::kStatus).data().toString(), QStringLiteral("match"));
    QVERIFY(m.index(4, TensorCompareModel::kCheck)
                .data()
                .toString()
                .startsWith(QStringLiteral("nan positions differ")));
    QCOMPARE(m.index(6, TensorCompareModel::kStatus).data().toString(),
             QStringLiteral("only in A"));
    QVERIFY(m.index(6, 0).data(ComparisonModel::kAgreesRole).toBool());
    QVERIFY(m.index(3, 0).data(Qt::BackgroundRole).isValid());
    QVERIFY(m.index(3, 0).data(Qt::BackgroundRole) != m.index(2, 0).data(Qt::BackgroundRole));
    QVERIFY(m.summary().contains(QStringLiteral("A: first NaN/Inf: t3")));

    const auto h = m.histogram();
    QCOMPARE(h.total(), 6u);
    QCOMPARE(h.exact, 4u);
    QCOMPARE(h.non_finite, 1u);
    QCOMPARE(*m.error(2), fixture::kNpyError);
    QCOMPARE(h.count(h.bar_of(fixture::kNpyError)), 1u);
    QCOMPARE(h.label(h.bar_of(fixture::kNpyError)), QStringLiteral("1e-03"));
  }

  void cancel_stops_the_comparison() {
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    double last = 0;
    TaskControl control(cancelled, [&](double fraction) {
      last = fraction;
      if (fraction > 0) *cancelled = true;
    });
    QVERIFY_THROWS_EXCEPTION(TaskCancelled, parity::gui::load_tensor_comparison(
                                                dir_.filePath(QStringLiteral("dumps/a")),
                                                dir_.filePath(QStringLiteral("dumps/b")), control));
    QVERIFY2(last < 0.1, qPrintable(QString::number(last)));
  }

  void missing_dump_is_an_error() {
    QVERIFY_THROWS_EXCEPTION(parity::Error, load(dir_.filePath(QStringLiteral("nowhere")),
                                                 dir_.filePath(QStringLiteral("npy/b"))));
  }

 private:
  QTemporaryDir dir_;
  std::unique_ptr<TensorCompareModel> dumps_, npy_;
};

PARITY_QT_TEST(TensorCompareModelTest, kCore)
#include "tensor_compare_model_test.moc"
