// Helpers for fuzz targets: our readers open files by path, so each input is
// written to a file of this process's own and opened from there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
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

}  // namespace parity::fuzz
