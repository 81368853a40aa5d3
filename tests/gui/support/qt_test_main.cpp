#include "qt_test_main.hpp"

#include <QApplication>
#include <QCoreApplication>
#include <QRegularExpression>
#include <QTest>
#include <mutex>
#include <string>

#include "parity/core/log.hpp"

namespace {

// Every warning but the offscreen platform's notice that it cannot resize a
// window to its size hints, which every window shown there prints.
const QRegularExpression& unexpected_warning() {
  static const QRegularExpression pattern(
      QStringLiteral("^(?!This plugin does not support propagateSizeHints)"));
  return pattern;
}

std::mutex handler_mutex;
QtMessageHandler qtest_handler = nullptr;

// Qt Test forgets its fail-on-warning patterns at the end of each test
// function; this handler, in front of Qt Test's, registers the pattern again
// whenever an unexpected warning arrives, so that Qt Test fails the function
// (after its own check for messages the test said to ignore).
void fail_on_unexpected_warning(QtMsgType type, const QMessageLogContext& context,
                                const QString& message) {
  std::lock_guard lock(handler_mutex);
  if ((type == QtWarningMsg || type == QtCriticalMsg) &&
      unexpected_warning().match(message).hasMatch())
    QTest::failOnWarning(unexpected_warning());
  qtest_handler(type, context, message);
}

void forward_parity_log(parity::log::Level level, std::string_view message) {
  const std::string text(message);
  switch (level) {
    case parity::log::Level::kError:
      qCritical("parity: %s", text.c_str());
      break;
    case parity::log::Level::kWarning:
      qWarning("parity: %s", text.c_str());
      break;
    default:
      qInfo("parity: %s", text.c_str());
      break;
  }
}

std::unique_ptr<QCoreApplication> make_application(int& argc, char** argv) {
  if (qt_test::application() == qt_test::Application::kWidgets)
    return std::make_unique<QApplication>(argc, argv);
  return std::make_unique<QCoreApplication>(argc, argv);
}

}  // namespace

int main(int argc, char** argv) {
  const std::unique_ptr<QCoreApplication> application = make_application(argc, argv);
  application->setAttribute(Qt::AA_Use96Dpi, true);
  const std::unique_ptr<QObject> test = qt_test::make_test_object();
  parity::log::set_sink(forward_parity_log);
  QTest::qInit(test.get(), argc, argv);  // installs Qt Test's message handler
  qtest_handler = qInstallMessageHandler(fail_on_unexpected_warning);
  const int failures = QTest::qRun();
  qInstallMessageHandler(qtest_handler);
  QTest::qCleanup();
  return failures;
}
