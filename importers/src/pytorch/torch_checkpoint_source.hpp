// A PyTorch checkpoint behind the TensorSource interface, whatever its
// container: the pickle's index of tensors and storages, plus a reader of
// storage bytes that the zip and legacy formats each provide.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>

#include "parity/importers/tensor_source.hpp"
#include "pytorch/torch_pickle_index.hpp"

namespace parity::importers {

class TorchStorageReader {
 public:
  virtual ~TorchStorageReader() = default;
  // Bytes [offset, offset + out.size()) of `storage`, a range the caller has
  // checked against the storage's size. Thread-safe.
  virtual void read(const TorchStorage& storage, std::uint64_t offset,
                    std::span<std::byte> out) const = 0;
  // True when reading part of the storage costs as much as reading all of it
  // (a compressed zip member), so views are read in one piece.
  virtual bool reads_whole_storage(const TorchStorage& storage) const = 0;
};

enum class TorchByteOrder { kLittle, kBig };

class TorchCheckpointSource final : public TensorSource {
 public:
  TorchCheckpointSource(std::string_view format, std::filesystem::path path, TorchPickleIndex index,
                        std::unique_ptr<TorchStorageReader> reader, TorchByteOrder byte_order);

  std::string_view format() const override { return format_; }
  const std::filesystem::path& path() const override { return path_; }
  const std::vector<TensorEntry>& entries() const override { return entries_; }
  NamedTensor read(std::string_view name) const override;

 private:
  std::string_view format_;
  std::filesystem::path path_;
  TorchPickleIndex index_;
  std::unique_ptr<TorchStorageReader> reader_;
  TorchByteOrder byte_order_;
  std::vector<TensorEntry> entries_;
  std::map<std::string, std::size_t, std::less<>> by_name_;  // name -> index_.tensors position
};

}  // namespace parity::importers
