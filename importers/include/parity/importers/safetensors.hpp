// The safetensors format (Hugging Face): an 8-byte little-endian header length
// N, N bytes of JSON header naming each tensor's dtype, shape and byte range,
// then the tensors' bytes. SafetensorsFile checks the whole header when it
// opens a file and reads one tensor at a time with positioned reads, so a
// multi-gigabyte file is never read whole; write_safetensors streams tensors
// to disk. Every fault is a parity::Error naming the file and the tensor or
// offset. The layout we write, and what we refuse, is in
// docs/formats/safetensors.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parity/core/dtype.hpp"
#include "parity/importers/file_descriptor.hpp"
#include "parity/importers/named_tensor.hpp"
#include "parity/importers/tensor_source.hpp"

namespace parity::importers {

// safetensors' dtype codes ("F32", "BF16", "BOOL", ...) for the dtypes Parity
// holds. Codes of other safetensors dtypes (U16, U32, U64, F8_*, ...) are
// refused by the reader.
std::string_view safetensors_dtype_code(DType dtype);
std::optional<DType> parse_safetensors_dtype(std::string_view code);

// Headers larger than this are refused (the reference implementation's limit).
inline constexpr std::uint64_t kSafetensorsMaxHeaderBytes = 100'000'000;

struct SafetensorsTensorInfo {
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0;  // data_offsets, relative to the start of the data
  std::uint64_t end = 0;

  std::uint64_t byte_size() const { return end - begin; }
  std::int64_t element_count() const;
};

class SafetensorsFile {
 public:
  // Opens `path` and validates its header against the file's size: throws
  // parity::Error for a short or truncated file, a header that is not a JSON
  // object, unknown keys or dtypes, duplicate names, sizes that disagree with
  // shape x dtype, and offsets that overlap, leave holes or run past the end.
  static SafetensorsFile open(const std::filesystem::path& path);

  const std::filesystem::path& path() const { return path_; }
  // The tensors in header order (for files we write: the order they were given).
  const std::vector<SafetensorsTensorInfo>& tensors() const { return tensors_; }
  // The "__metadata__" object (empty when the file has none).
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  // File offset of the first data byte: 8 + header length.
  std::uint64_t data_offset() const { return data_offset_; }
  std::uint64_t file_size() const { return file_size_; }

  const SafetensorsTensorInfo* find(std::string_view name) const;
  bool contains(std::string_view name) const { return find(name) != nullptr; }

  // Reads one tensor (only its bytes are read). Throws parity::Error for an
  // unknown name, a file that shrank since open, or a BOOL byte other than 0/1.
  // Safe to call from several threads at once.
  NamedTensor read(std::string_view name) const;
  // Reads one tensor's bytes into `out`, which must be exactly its byte size.
  void read_into(std::string_view name, std::span<std::byte> out) const;
  // Every tensor, in header order.
  std::vector<NamedTensor> read_all() const;

 private:
  SafetensorsFile() = default;
  const SafetensorsTensorInfo& info_or_throw(std::string_view name) const;

  std::filesystem::path path_;
  FileDescriptor fd_;
  std::uint64_t file_size_ = 0;
  std::uint64_t data_offset_ = 0;
  std::vector<SafetensorsTensorInfo> tensors_;
  std::map<std::string, std::size_t, std::less<>> index_;  // name -> position in tensors_
  std::map<std::string, std::string> metadata_;
};

struct SafetensorsWriteOptions {
  // fsync the file before closing it (for callers that then rename it into place).
  bool sync = false;
};

// Writes `tensors` and `metadata` to `path` (replacing it): the header lists
// the tensors in the given order; their bytes are laid out by decreasing
// element size, then in the given order, so every tensor is aligned to its
// element size; the header is padded with spaces to a multiple of 8 bytes.
// Throws parity::Error, removing the partial file, for an inconsistent
// tensor, a duplicate or reserved name, metadata that is not valid UTF-8, or
// any I/O failure. Not atomic: see trainer/checkpoint for atomic replacement.
void write_safetensors(const std::filesystem::path& path, std::span<const NamedTensor> tensors,
                       const std::map<std::string, std::string>& metadata = {},
                       const SafetensorsWriteOptions& options = {});

// A safetensors file as a TensorSource (format "safetensors"); our trainer's
// checkpoints are such files.
std::unique_ptr<TensorSource> open_safetensors_source(const std::filesystem::path& path);

}  // namespace parity::importers
