// The one main of every Qt Test executable of parity-view (qt_test_main.cpp),
// in place of Qt's QTEST_MAIN: a test file names its test class and the
// application it needs with PARITY_QT_TEST. Besides running the test, the
// main keeps the rule of the project's tests: a warning fails the test
// function it is logged in, Qt's as well as parity::log's (which it forwards
// to Qt's, from any thread).
#pragma once

#include <QObject>
#include <memory>

namespace qt_test {

// The application a test runs under: kCore for models (QCoreApplication,
// headless), kWidgets for windows (QApplication).
enum class Application { kCore, kWidgets };

// Defined by PARITY_QT_TEST in each test file: the test's application, and
// its test object, made once that application exists.
Application application();
std::unique_ptr<QObject> make_test_object();

}  // namespace qt_test

#define PARITY_QT_TEST(TestObject, application_kind)                                             \
  qt_test::Application qt_test::application() { return qt_test::Application::application_kind; } \
  std::unique_ptr<QObject> qt_test::make_test_object() { return std::make_unique<TestObject>(); }
