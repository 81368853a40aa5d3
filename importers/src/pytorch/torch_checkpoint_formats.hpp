// The two containers of torch.save, each opened into a TorchCheckpointSource;
// open_torch_checkpoint chooses between them by the file's first bytes.
#pragma once

#include <filesystem>
#include <memory>

#include "parity/importers/tensor_source.hpp"

namespace parity::importers {

// A zip of <archive>/data.pkl, <archive>/data/<storage key>, <archive>/version
// and (PyTorch 2.1 and later) <archive>/byteorder.
std::unique_ptr<TensorSource> open_torch_zip_checkpoint(const std::filesystem::path& path);

// Five pickles (magic number, protocol version, system info, the object,
// the storage keys), then each storage as an 8-byte element count and its bytes.
std::unique_ptr<TensorSource> open_torch_legacy_checkpoint(const std::filesystem::path& path);

}  // namespace parity::importers
