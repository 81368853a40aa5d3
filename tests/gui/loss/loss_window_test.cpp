// The loss window of `parity-view --loss A B`, opened for real (offscreen):
// it loads both curves in the background, then shows the verdict, the
// first-loss reading and the chart (A, B, the band and the parting marker);
// a log without loss lines shows its error, naming the file.
#include "loss/loss_window.hpp"

#include <QAreaSeries>
#include <QFile>
#include <QLabel>
#include <QLineSeries>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "loss/loss_chart.hpp"
#include "qt_test_main.hpp"

using parity::gui::LossWindow;

namespace {

// A log as parity-train prints it with --log-every 1: loss lines and the
// epoch's timing line.
void write_log(const QString& path, const QList<double>& losses) {
  QFile file(path);
  QVERIFY(file.open(QIODevice::WriteOnly));
  for (int step = 0; step < losses.size(); ++step)
    file.write(QStringLiteral("epoch: 1 step: %1, loss is %2\n")
                   .arg(step + 1)
                   .arg(losses[step], 0, 'g', 9)
                   .toUtf8());
  file.write("epoch time: 2363.573 ms, per step time: 393.929 ms\n");
}

bool wait_loaded(LossWindow& window) {
  if (window.state() != LossWindow::State::kLoading) return true;
  QSignalSpy ended(&window, &LossWindow::load_ended);
  return ended.wait(20'000);
}

QString label_text(const LossWindow& window, const char* name) {
  return window.findChild<QLabel*>(QLatin1String(name))->text();
}

}  // namespace

class LossWindowTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    write_log(path("a.log"), {1.42177784, 1.68780899, 1.50463176, 1.38104737});
    write_log(path("b.log"), {1.42177784, 1.73156965, 3.13180685, 2.21850204});
  }

  void shows_the_verdict_and_both_curves() {
    LossWindow window(path("a.log"), path("b.log"));
    window.show();
    QVERIFY(wait_loaded(window));
    QCOMPARE(window.state(), LossWindow::State::kLoaded);
    QVERIFY(label_text(window, "verdict").startsWith(QStringLiteral("PARTED at step 2")));
    QVERIFY(label_text(window, "reading").contains(QStringLiteral("later losses drift")));
    const auto series = window.chart()->chart()->series();
    QCOMPARE(series.size(), 4);  // band, A, B, the parting marker
    QVERIFY(qobject_cast<QAreaSeries*>(series[0]));
    QCOMPARE(qobject_cast<QLineSeries*>(series[1])->count(), 4);
    QCOMPARE(qobject_cast<QLineSeries*>(series[2])->at(2), QPointF(3, 3.13180685));
    QCOMPARE(series[3]->name(), QStringLiteral("parted at step 2"));
  }

  void same_curve_matches() {
    LossWindow window(path("a.log"), path("a.log"));
    QVERIFY(wait_loaded(window));
    QVERIFY(label_text(window, "verdict").startsWith(QStringLiteral("MATCH")));
    QCOMPARE(window.chart()->chart()->series().size(), 3);
  }

  void a_log_without_loss_lines_shows_its_error() {
    QFile empty(path("empty.log"));
    QVERIFY(empty.open(QIODevice::WriteOnly));
    empty.write("epoch time: 1 ms, per step time: 1 ms\n");
    empty.close();
    LossWindow window(path("a.log"), path("empty.log"));
    QVERIFY(wait_loaded(window));
    QCOMPARE(window.state(), LossWindow::State::kFailed);
    QVERIFY(label_text(window, "verdict").contains(QStringLiteral("no loss line found")));
    QVERIFY(label_text(window, "verdict").contains(path("empty.log")));
  }

 private:
  QString path(const QString& name) const { return dir_.filePath(name); }
  QTemporaryDir dir_;
};

PARITY_QT_TEST(LossWindowTest, kWidgets)
#include "loss_window_test.moc"
