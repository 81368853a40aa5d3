// The comparison windows, opened for real (offscreen): each loads in the
// background, then selects the first mismatch, fills the histogram and the
// summary; F8 steps through the findings and Ctrl+G returns to the first one,
// clearing a filter that hides it; a bad, truncated or missing input shows its
// message in the window; Cancel stops a load.
#include <QBarSeries>
#include <QBarSet>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "compare/compare_window.hpp"
#include "compare/diff_window.hpp"
#include "compare/histogram_chart.hpp"
#include "fixtures.hpp"
#include "qt_test_main.hpp"

using parity::gui::ComparisonWindow;
using parity::gui::TensorCompareWindow;
using parity::gui::WeightDiffWindow;
using State = ComparisonWindow::State;

namespace {

bool wait_loaded(ComparisonWindow& window) {
  if (window.state() != State::kLoading) return true;
  QSignalSpy ended(&window, &ComparisonWindow::load_ended);
  return ended.wait(20'000);
}

// The model row of the table's current index.
int selected_row(const ComparisonWindow& window) {
  return window.proxy()->mapToSource(window.table()->currentIndex()).row();
}

double histogram_total(const ComparisonWindow& window) {
  const auto series = window.histogram()->chart()->series();
  if (series.size() != 1) return -1;
  const QBarSet* set = static_cast<QBarSeries*>(series.front())->barSets().front();
  double total = 0;
  for (int bar = 0; bar < set->count(); ++bar) total += set->at(bar);
  return total;
}

QString label_text(const ComparisonWindow& window, const char* name) {
  return window.findChild<QLabel*>(QLatin1String(name))->text();
}

}  // namespace

class CompareWindowsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QString error = fixture::write_checkpoints(dir_.path());
    QVERIFY2(error.isEmpty(), qPrintable(error));
    error = fixture::write_npy_dirs(dir_.path());
    QVERIFY2(error.isEmpty(), qPrintable(error));
  }

  void diff_window_selects_the_planted_parameter() {
    WeightDiffWindow window(path("a.safetensors"), path("b.safetensors"));
    window.show();
    // The constructor only started the diff: the window is up while it runs.
    QCOMPARE(window.state(), State::kLoading);
    QVERIFY(window.findChild<QPushButton*>(QStringLiteral("cancel"))->isVisibleTo(&window));
    QVERIFY(wait_loaded(window));
    QCOMPARE(window.state(), State::kLoaded);
    QVERIFY(window.message().isEmpty());
    QVERIFY(window.weight_model());
    QCOMPARE(selected_row(window), *window.weight_model()->first_mismatch_row());
    QCOMPARE(window.weight_model()->parameter(selected_row(window)).name_a,
             std::string(fixture::kPerturbedParameter));
    QVERIFY(label_text(window, "summary").startsWith(QStringLiteral("DIFFER (1 findings)")));
    QCOMPARE(histogram_total(window), 102.0);
    QVERIFY(!window.findChild<QPushButton*>(QStringLiteral("cancel"))->isVisibleTo(&window));
  }

  void compare_window_steps_through_findings() {
    TensorCompareWindow window(path("a"), path("b"));
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QVERIFY(wait_loaded(window));
    QCOMPARE(window.state(), State::kLoaded);
    QCOMPARE(selected_row(window), 2);
    QCOMPARE(histogram_total(window), 6.0);
    QVERIFY(label_text(window, "summary").startsWith(QStringLiteral("FAIL: 6 pairs compared")));

    QTest::keyClick(&window, Qt::Key_F8);
    QCOMPARE(selected_row(window), 4);
    QTest::keyClick(&window, Qt::Key_F8);  // no finding below: stays
    QCOMPARE(selected_row(window), 4);
    QTest::keyClick(&window, Qt::Key_F8, Qt::ShiftModifier);
    QCOMPARE(selected_row(window), 2);

    auto* filter = window.findChild<QLineEdit*>(QStringLiteral("filter"));
    QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier);
    QTest::keyClicks(filter, QStringLiteral("t5"));
    QCOMPARE(window.proxy()->rowCount(), 1);
    QTest::keyClick(&window, Qt::Key_G, Qt::ControlModifier);
    QVERIFY(filter->text().isEmpty());
    QCOMPARE(selected_row(window), 2);
  }

  void bad_inputs_show_their_message() {
    const QString text = path("notes.ckpt");
    QFile file(text);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("not a checkpoint\n");
    file.close();
    const QString truncated = path("truncated.safetensors");
    QVERIFY(QFile::copy(path("b.safetensors"), truncated));
    QVERIFY(QFile::resize(truncated, QFileInfo(truncated).size() / 2));

    for (const auto& [a, b] :
         {std::pair{text, path("b.safetensors")}, std::pair{path("a.safetensors"), truncated}}) {
      WeightDiffWindow window(a, b);
      window.show();
      QVERIFY(wait_loaded(window));
      QCOMPARE(window.state(), State::kFailed);
      QVERIFY(!window.weight_model());
      QVERIFY2(window.message().startsWith(QStringLiteral("Could not compare: ")),
               qPrintable(window.message()));
      QVERIFY(window.findChild<QLabel*>(QStringLiteral("message"))->isVisibleTo(&window));
    }
    TensorCompareWindow window(path("nowhere"), path("b"));
    QVERIFY(wait_loaded(window));
    QCOMPARE(window.state(), State::kFailed);
    QVERIFY2(window.message().contains(path("nowhere")), qPrintable(window.message()));
  }

  void cancel_stops_the_load() {
    WeightDiffWindow window(path("a.safetensors"), path("b.safetensors"));
    window.show();
    QTest::mouseClick(window.findChild<QPushButton*>(QStringLiteral("cancel")), Qt::LeftButton);
    QVERIFY(wait_loaded(window));
    QCOMPARE(window.state(), State::kCancelled);
    QVERIFY(!window.weight_model());
    QVERIFY(window.message().startsWith(QStringLiteral("Cancelled")));
  }

 private:
  QString path(const char* name) const { return dir_.filePath(QLatin1String(name)); }

  QTemporaryDir dir_;
};

PARITY_QT_TEST(CompareWindowsTest, kWidgets)
#include "compare_windows_test.moc"
