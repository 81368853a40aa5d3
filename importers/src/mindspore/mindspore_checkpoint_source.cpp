// The TensorSource of a scanned MindSpore checkpoint: entries from the scan,
// each read() a positioned read of its tensor_content slices.
#include <map>

#include "io/posix_file.hpp"
#include "mindspore/mindspore_checkpoint_scan.hpp"
#include "parity/core/error.hpp"
#include "parity/importers/mindspore_checkpoint.hpp"

namespace parity::importers {
namespace {

namespace fs = std::filesystem;

// The file offset of byte `index` of a tensor stored in `slices`.
std::uint64_t file_offset_of(const std::vector<protobuf::ByteRange>& slices, std::uint64_t index) {
  for (const protobuf::ByteRange& slice : slices) {
    if (index < slice.size) return slice.offset + index;
    index -= slice.size;
  }
  return slices.back().end();
}

class MindsporeCheckpointSource final : public TensorSource {
 public:
  MindsporeCheckpointSource(fs::path path, FileDescriptor fd,
                            std::vector<mindspore::ScannedTensor> tensors)
      : path_(std::move(path)), fd_(std::move(fd)) {
    for (auto& tensor : tensors) {
      index_.emplace(tensor.entry.name, entries_.size());
      entries_.push_back(std::move(tensor.entry));
      slices_.push_back(std::move(tensor.slices));
    }
  }

  std::string_view format() const override { return "mindspore"; }
  const fs::path& path() const override { return path_; }
  const std::vector<TensorEntry>& entries() const override { return entries_; }
  NamedTensor read(std::string_view name) const override;

 private:
  fs::path path_;
  FileDescriptor fd_;
  std::vector<TensorEntry> entries_;
  std::vector<std::vector<protobuf::ByteRange>> slices_;  // parallel to entries_
  std::map<std::string, std::size_t, std::less<>> index_;
};

NamedTensor MindsporeCheckpointSource::read(std::string_view name) const {
  const auto it = index_.find(name);
  if (it == index_.end()) {
    std::string hint = "the checkpoint holds " + std::to_string(entries_.size()) + " tensors";
    if (!entries_.empty()) hint += ", e.g. '" + entries_.front().name + "'";
    throw Error("no tensor named '" + std::string(name) + "'", path_.string(), hint);
  }
  const TensorEntry& entry = entries_[it->second];
  NamedTensor tensor{entry.name, entry.dtype, entry.shape, {}};
  tensor.data.resize(static_cast<std::size_t>(entry.byte_size()));
  std::span<std::byte> rest(tensor.data);
  for (const protobuf::ByteRange& slice : slices_[it->second]) {
    read_exactly(fd_.get(), path_, slice.offset, rest.first(slice.size),
                 "tensor '" + entry.name + "'");
    rest = rest.subspan(slice.size);
  }
  if (entry.dtype == DType::kBool)
    for (std::size_t i = 0; i < tensor.data.size(); ++i)
      if (std::to_integer<unsigned>(tensor.data[i]) > 1)
        throw Error("Bool element " + std::to_string(i) + " is " +
                        std::to_string(std::to_integer<unsigned>(tensor.data[i])) + ", not 0 or 1",
                    path_.string() + ", tag '" + entry.name + "', offset " +
                        std::to_string(file_offset_of(slices_[it->second], i)),
                    "the tensor's bytes are damaged");
  return tensor;
}

}  // namespace

std::unique_ptr<TensorSource> open_mindspore_checkpoint(const fs::path& path) {
  OpenedFile file = open_for_reading(path, "MindSpore checkpoint");
  auto tensors = mindspore::scan_checkpoint(file.fd.get(), path, file.size);
  return std::make_unique<MindsporeCheckpointSource>(path, std::move(file.fd), std::move(tensors));
}

}  // namespace parity::importers
