// What a PyTorch checkpoint's pickle says: its tensors (name, dtype, shape,
// and the strided view of a storage each one is) and its storages (key,
// element type, size), found by walking the pickle's value tree. The zip and
// legacy readers then locate each storage's bytes in the file.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "parity/importers/pickle.hpp"
#include "parity/importers/tensor_source.hpp"
#include "pytorch/torch_types.hpp"

namespace parity::importers {

struct TorchStorage {
  std::string key;
  const TorchScalarType* type = nullptr;  // an untyped storage is one of uint8
  std::uint64_t element_count = 0;
  std::uint64_t byte_size = 0;
};

struct TorchTensor {
  TensorEntry entry;
  std::string storage_key;
  std::int64_t storage_offset = 0;    // in elements of entry.dtype
  std::vector<std::int64_t> strides;  // in elements; one per dimension
};

struct TorchPickleIndex {
  std::vector<TorchTensor> tensors;  // in pickle order, names unique
  std::map<std::string, TorchStorage, std::less<>> storages;
};

// Walks `pickle` (read from `path`; `where` names the pickle in errors).
// Tensors are named by their dotted path through dicts (keys) and lists,
// tuples and sets (positions); a tensor that is the whole pickle is called
// `root_name`. Non-tensor leaves are skipped. Throws parity::Error naming the
// file and the tensor for a malformed tensor or storage description, a view
// that runs past its storage, a dtype Parity does not hold (complex,
// quantized, ...), duplicate names, or nesting past kMaxPickleNesting.
TorchPickleIndex index_torch_pickle(const Pickle& pickle, const std::string& path,
                                    const std::string& where, const std::string& root_name);

}  // namespace parity::importers
