#include "pytorch/torch_checkpoint_source.hpp"

#include <algorithm>

#include "parity/core/error.hpp"
#include "pytorch/strided_read.hpp"

namespace parity::importers {
namespace {

void swap_element_bytes(std::span<std::byte> data, std::size_t element_size) {
  for (std::size_t i = 0; i + element_size <= data.size(); i += element_size)
    std::reverse(data.begin() + static_cast<std::ptrdiff_t>(i),
                 data.begin() + static_cast<std::ptrdiff_t>(i + element_size));
}

}  // namespace

TorchCheckpointSource::TorchCheckpointSource(std::string_view format, std::filesystem::path path,
                                             TorchPickleIndex index,
                                             std::unique_ptr<TorchStorageReader> reader,
                                             TorchByteOrder byte_order)
    : format_(format),
      path_(std::move(path)),
      index_(std::move(index)),
      reader_(std::move(reader)),
      byte_order_(byte_order) {
  entries_.reserve(index_.tensors.size());
  for (std::size_t i = 0; i < index_.tensors.size(); ++i) {
    entries_.push_back(index_.tensors[i].entry);
    by_name_.emplace(index_.tensors[i].entry.name, i);
  }
}

NamedTensor TorchCheckpointSource::read(std::string_view name) const {
  const auto found = by_name_.find(name);
  if (found == by_name_.end()) {
    std::string hint = "the checkpoint holds " + std::to_string(entries_.size()) + " tensors";
    if (!entries_.empty()) hint += ", e.g. '" + entries_.front().name + "'";
    throw Error("no tensor named '" + std::string(name) + "'", path_.string(), hint);
  }
  const TorchTensor& tensor = index_.tensors[found->second];
  const TorchStorage& storage = index_.storages.find(tensor.storage_key)->second;
  const std::size_t element_size = dtype_size(tensor.entry.dtype);

  NamedTensor out;
  out.name = tensor.entry.name;
  out.dtype = tensor.entry.dtype;
  out.shape = tensor.entry.shape;
  const StridedView view{tensor.entry.shape, tensor.strides, tensor.storage_offset, element_size};
  out.data = read_strided(
      view,
      [&](std::uint64_t offset, std::span<std::byte> bytes) {
        reader_->read(storage, offset, bytes);
      },
      reader_->reads_whole_storage(storage));
  if (byte_order_ == TorchByteOrder::kBig) swap_element_bytes(out.data, element_size);
  if (out.dtype == DType::kBool &&
      std::any_of(out.data.begin(), out.data.end(), [](std::byte b) { return b > std::byte{1}; }))
    throw Error("bool tensor '" + out.name + "' holds a byte other than 0 or 1",
                path_.string() + ", tensor '" + out.name + "'",
                "the file is damaged; save it again with torch.save");
  return out;
}

}  // namespace parity::importers
