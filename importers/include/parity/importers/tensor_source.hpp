// TensorSource: a checkpoint or tensor file opened for reading, whatever its
// format. Opening reads only the file's index (a header, a zip directory, a
// pickle, a protobuf skeleton); read() then fetches one tensor's bytes, so
// memory stays bounded by about the largest tensor, not the file. Every
// reader (safetensors, PyTorch, MindSpore, NumPy) implements it, and the
// analyzer's diff and convert work on it alone.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parity/core/dtype.hpp"
#include "parity/importers/named_tensor.hpp"

namespace parity::importers {

// What a file says about one tensor before its bytes are read.
struct TensorEntry {
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<std::int64_t> shape;  // [] is a scalar

  std::int64_t element_count() const;
  std::int64_t byte_size() const;  // of the C-contiguous tensor read() returns
};

class TensorSource {
 public:
  virtual ~TensorSource() = default;

  // A short format name for reports: "safetensors", "pytorch", "pytorch-legacy",
  // "mindspore", "npy", "npz".
  virtual std::string_view format() const = 0;
  virtual const std::filesystem::path& path() const = 0;
  // Every tensor in the file, in file order, names unique.
  virtual const std::vector<TensorEntry>& entries() const = 0;
  // One tensor, C-contiguous and little-endian, its dtype and shape as in
  // entries(). Throws parity::Error naming the file and the tensor for an
  // unknown name or bytes that cannot be read. Safe to call from several
  // threads at once.
  virtual NamedTensor read(std::string_view name) const = 0;

  // The entry called `name`, or nullptr.
  const TensorEntry* find(std::string_view name) const;
};

// Opens any supported tensor file. The format is recognised by content (zip
// with a data.pkl, zip of .npy members, NumPy magic, pickle, safetensors
// header, protobuf checkpoint), with the extension as a tie-breaker; a file
// that is none of them is a parity::Error listing the formats tried.
std::unique_ptr<TensorSource> open_tensor_file(const std::filesystem::path& path);

// Writes `tensors` in the format of `path`'s extension: .safetensors,
// .pth/.pt (a PyTorch state_dict, torch_checkpoint.hpp), .ckpt (MindSpore),
// .npz, or .npy (exactly one tensor). Throws parity::Error for another
// extension and for whatever the format's writer refuses.
void write_tensor_file(const std::filesystem::path& path, std::span<const NamedTensor> tensors);

}  // namespace parity::importers
