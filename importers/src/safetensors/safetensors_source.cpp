// SafetensorsFile behind the TensorSource interface.
#include "parity/importers/safetensors.hpp"

namespace parity::importers {
namespace {

class SafetensorsSource final : public TensorSource {
 public:
  explicit SafetensorsSource(SafetensorsFile file) : file_(std::move(file)) {
    entries_.reserve(file_.tensors().size());
    for (const SafetensorsTensorInfo& info : file_.tensors())
      entries_.push_back({info.name, info.dtype, info.shape});
  }

  std::string_view format() const override { return "safetensors"; }
  const std::filesystem::path& path() const override { return file_.path(); }
  const std::vector<TensorEntry>& entries() const override { return entries_; }
  NamedTensor read(std::string_view name) const override { return file_.read(name); }

 private:
  SafetensorsFile file_;
  std::vector<TensorEntry> entries_;
};

}  // namespace

std::unique_ptr<TensorSource> open_safetensors_source(const std::filesystem::path& path) {
  return std::make_unique<SafetensorsSource>(SafetensorsFile::open(path));
}

}  // namespace parity::importers
