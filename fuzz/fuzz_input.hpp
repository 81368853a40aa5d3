// Helpers for fuzz targets: our readers open files by path, so each input is
// written to a file of this process's own and opened from there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string_view>

#include "parity/importers/tensor_source.hpp"

namespace parity::fuzz {

// Writes the input to a per-process temporary file with extension `suffix`
// (".pth", ".npz", ...) and returns its path (the same path on every call).
std::filesystem::path write_input(const std::uint8_t* data, std::size_t size,
                                  std::string_view suffix);

// Reads every tensor of `source` and checks each against its entry; aborts on
// a disagreement, which a reader must never produce.
void read_every_tensor(const importers::TensorSource& source);

// Opens a file as a TensorSource, as open_npy, open_safetensors_source, ... do.
using SourceOpener = std::unique_ptr<importers::TensorSource> (*)(const std::filesystem::path&);

// The whole test of a reader that opens a file as a TensorSource: writes the
// input with extension `suffix`, opens it with `open` and reads every tensor.
// The reader either reads consistently or refuses with parity::Error (caught
// here). Returns 0, which is what LLVMFuzzerTestOneInput returns.
int fuzz_tensor_source(const std::uint8_t* data, std::size_t size, std::string_view suffix,
                       SourceOpener open);

}  // namespace parity::fuzz
