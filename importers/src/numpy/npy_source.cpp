// A .npy file behind TensorSource.
#include <algorithm>

#include "io/posix_file.hpp"
#include "numpy/npy_data.hpp"
#include "numpy/npy_header.hpp"
#include "parity/core/error.hpp"
#include "parity/importers/numpy.hpp"

namespace parity::importers {
namespace {

class NpySource final : public TensorSource {
 public:
  explicit NpySource(const std::filesystem::path& path)
      : path_(path), file_(open_for_reading(path, ".npy file")) {
    const auto read_prefix = [&](std::uint64_t max_bytes) {
      std::vector<std::byte> bytes(std::min(max_bytes, file_.size));
      read_exactly(file_.fd.get(), path_, 0, bytes, "the .npy header");
      return bytes;
    };
    header_ = read_npy_header(read_prefix, file_.size, path.string());
    entries_.push_back({path.stem().string(), header_.dtype, header_.shape});
  }

  std::string_view format() const override { return "npy"; }
  const std::filesystem::path& path() const override { return path_; }
  const std::vector<TensorEntry>& entries() const override { return entries_; }

  NamedTensor read(std::string_view name) const override {
    const TensorEntry& entry = entries_.front();
    if (name != entry.name)
      throw Error("no tensor named '" + std::string(name) + "'", path_.string(),
                  "a .npy file holds one tensor, named after the file: '" + entry.name + "'");
    std::vector<std::byte> stored(header_.data_size);
    read_exactly(file_.fd.get(), path_, header_.data_offset, stored, "the array's data");
    return {entry.name, entry.dtype, entry.shape,
            npy_to_tensor_bytes(header_, std::move(stored),
                                path_.string() + ", tensor '" + entry.name + "'")};
  }

 private:
  std::filesystem::path path_;
  OpenedFile file_;
  NpyHeader header_;
  std::vector<TensorEntry> entries_;
};

}  // namespace

std::unique_ptr<TensorSource> open_npy(const std::filesystem::path& path) {
  return std::make_unique<NpySource>(path);
}

}  // namespace parity::importers
