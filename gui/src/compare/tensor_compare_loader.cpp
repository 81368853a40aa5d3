#include "parity/gui/compare/tensor_compare_loader.hpp"

#include <filesystem>

namespace parity::gui {
namespace {

// Progress of a stage that covers [from, to] of the whole load.
std::function<void(std::size_t, std::size_t)> stage(TaskControl& control, double from, double to) {
  return [&control, from, to](std::size_t done, std::size_t total) {
    control.progress(from + (to - from) * static_cast<double>(done) / static_cast<double>(total));
  };
}

}  // namespace

TensorComparison load_tensor_comparison(const QString& dir_a, const QString& dir_b,
                                        TaskControl& control) {
  control.progress(0);
  const auto a = importers::TensorDump::open(std::filesystem::path(dir_a.toStdString()));
  control.check();
  const auto b = importers::TensorDump::open(std::filesystem::path(dir_b.toStdString()));
  analyzer::CompareOptions options;
  // One thread: then parallel_for reports progress on this thread, where
  // TaskCancelled may unwind the comparison. On its worker threads an
  // exception from the progress callback would end the program, and
  // TensorDump offers no other place to stop.
  options.parallel.threads = 1;
  options.parallel.progress = stage(control, 0, 0.6);
  TensorComparison result;
  result.comparison = analyzer::compare_dumps(a, b, options);
  result.scan_a = analyzer::scan_dump(a, stage(control, 0.6, 0.8));
  result.scan_b = analyzer::scan_dump(b, stage(control, 0.8, 1.0));
  return result;
}

}  // namespace parity::gui
