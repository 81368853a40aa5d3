#include "parity/gui/compare/weight_diff_loader.hpp"

#include <filesystem>
#include <memory>

namespace parity::gui {
namespace {

// Reads through another source but refuses once the task is cancelled, so a
// cancel stops diff_checkpoints at the next tensor: parallel_for lets no
// thread take a new pair after one threw, and rethrows TaskCancelled.
class CancellableSource : public importers::TensorSource {
 public:
  CancellableSource(std::unique_ptr<importers::TensorSource> inner, const TaskControl& control)
      : inner_(std::move(inner)), control_(control) {}

  std::string_view format() const override { return inner_->format(); }
  const std::filesystem::path& path() const override { return inner_->path(); }
  const std::vector<importers::TensorEntry>& entries() const override { return inner_->entries(); }
  importers::NamedTensor read(std::string_view name) const override {
    control_.check();
    return inner_->read(name);
  }

 private:
  std::unique_ptr<importers::TensorSource> inner_;
  const TaskControl& control_;
};

CancellableSource open(const QString& path, TaskControl& control) {
  CancellableSource source(importers::open_tensor_file(std::filesystem::path(path.toStdString())),
                           control);
  control.check();
  return source;
}

}  // namespace

analyzer::WeightDiff load_weight_diff(const QString& a, const QString& b, TaskControl& control) {
  control.progress(0);
  const CancellableSource source_a = open(a, control);
  const CancellableSource source_b = open(b, control);
  analyzer::DiffOptions options;
  // Called on any of the diff's threads, where an exception would end the
  // program: a cancel is left to CancellableSource::read.
  options.progress = [&control](std::size_t done, std::size_t total) {
    try {
      control.progress(static_cast<double>(done) / static_cast<double>(total));
    } catch (const TaskCancelled&) {
    }
  };
  return analyzer::diff_checkpoints(source_a, source_b, options);
}

}  // namespace parity::gui
