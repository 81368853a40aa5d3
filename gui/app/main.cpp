// parity-view: the desktop viewer.
//
//   parity-view [RUN.db...]            timelines (several: side by side, aligned by step)
//   parity-view --diff A B             weight diff of two checkpoints
//   parity-view --compare DIR_A DIR_B  tensor comparison of two dump directories
//   parity-view --loss A B             loss curves of two runs (logs or traces)
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QTimer>
#include <cstdio>

#include "compare/compare_window.hpp"
#include "compare/diff_window.hpp"
#include "loss/loss_window.hpp"
#include "main_window.hpp"

namespace {

int usage_error(const QString& message) {
  std::fprintf(stderr, "parity-view: %s (see --help)\n", qPrintable(message));
  return 2;
}

// --screenshot FILE: once the window has its content (`ready` fired), save
// it and quit: the docs' screenshots are taken this way under Xvfb.
template <typename Window, typename Signal>
void save_when_ready(Window* window, const QString& file, Signal ready) {
  QObject::connect(window, ready, window, [window, file] {
    QTimer::singleShot(400, window, [window, file] {  // let the charts animate in
      const bool saved = window->grab().save(file);
      if (!saved) std::fprintf(stderr, "parity-view: could not save %s\n", qPrintable(file));
      QApplication::exit(saved ? 0 : 1);
    });
  });
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("parity-view"));
  QApplication::setApplicationVersion(QStringLiteral(PARITY_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral(
      "Parity's desktop viewer: trace timelines with the analyzer's panels, weight diffs and "
      "tensor comparisons."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("paths"),
                               QStringLiteral("Trace databases (one run's ranks, or runs to align by "
                                              "step); with --diff two checkpoints; with --compare two "
                                              "dump directories."),
                               QStringLiteral("[paths...]"));
  const QCommandLineOption diff(QStringLiteral("diff"), QStringLiteral("Weight diff of two checkpoints A B."));
  const QCommandLineOption compare(QStringLiteral("compare"),
                                   QStringLiteral("Tensor comparison of two dump directories A B."));
  const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                      QStringLiteral("Save the window to FILE (PNG) once loaded, then quit."),
                                      QStringLiteral("FILE"));
  const QCommandLineOption step(QStringLiteral("step"),
                                QStringLiteral("Open zoomed to step N of the first trace, selected."),
                                QStringLiteral("N"));
  const QCommandLineOption find(QStringLiteral("find"),
                                QStringLiteral("Open with the first event named like TEXT selected."),
                                QStringLiteral("TEXT"));
  const QCommandLineOption loss(QStringLiteral("loss"),
                                QStringLiteral("Loss curves of two runs A B (training logs or traces)."));
  parser.addOptions({diff, compare, loss, screenshot, step, find});
  parser.process(app);
  const QStringList paths = parser.positionalArguments();

  std::unique_ptr<QMainWindow> window;
  if (parser.isSet(loss)) {
    if (parser.isSet(diff) || parser.isSet(compare))
      return usage_error(QStringLiteral("--loss excludes --diff and --compare"));
    if (paths.size() != 2)
      return usage_error(QStringLiteral("--loss takes exactly two paths, got %1").arg(paths.size()));
    auto loss_window = std::make_unique<parity::gui::LossWindow>(paths[0], paths[1]);
    if (parser.isSet(screenshot))
      save_when_ready(loss_window.get(), parser.value(screenshot), &parity::gui::LossWindow::load_ended);
    window = std::move(loss_window);
  } else if (parser.isSet(diff) || parser.isSet(compare)) {
    if (parser.isSet(diff) && parser.isSet(compare)) return usage_error(QStringLiteral("--diff and --compare exclude each other"));
    if (paths.size() != 2)
      return usage_error(QStringLiteral("%1 takes exactly two paths, got %2")
                             .arg(parser.isSet(diff) ? "--diff" : "--compare")
                             .arg(paths.size()));
    std::unique_ptr<parity::gui::ComparisonWindow> comparison;
    if (parser.isSet(diff))
      comparison = std::make_unique<parity::gui::WeightDiffWindow>(paths[0], paths[1]);
    else
      comparison = std::make_unique<parity::gui::TensorCompareWindow>(paths[0], paths[1]);
    if (parser.isSet(screenshot))
      save_when_ready(comparison.get(), parser.value(screenshot), &parity::gui::ComparisonWindow::load_ended);
    window = std::move(comparison);
  } else {
    for (const QString& path : paths)
      if (!QFileInfo(path).isFile()) return usage_error(QStringLiteral("no such trace file: %1").arg(path));
    auto main_window = std::make_unique<parity::gui::MainWindow>();
    bool step_ok = true;
    const qlonglong step_number = parser.value(step).toLongLong(&step_ok);
    if (parser.isSet(step) && !step_ok)
      return usage_error(QStringLiteral("--step wants a step number, got '%1'").arg(parser.value(step)));
    QObject::connect(main_window.get(), &parity::gui::MainWindow::traces_loaded, main_window.get(),
                     [window = main_window.get(), &parser, step, find, step_number] {
                       if (parser.isSet(step) && !window->show_step(step_number))
                         std::fprintf(stderr, "parity-view: the trace has no step %lld\n", step_number);
                       if (parser.isSet(find)) window->find(parser.value(find));
                     });
    if (parser.isSet(screenshot)) {
      save_when_ready(main_window.get(), parser.value(screenshot), &parity::gui::MainWindow::report_ready);
      save_when_ready(main_window.get(), parser.value(screenshot), &parity::gui::MainWindow::load_failed);
    }
    if (!paths.isEmpty()) main_window->open_traces(paths);
    window = std::move(main_window);
  }
  window->show();
  return QApplication::exec();
}
