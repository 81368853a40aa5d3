// Test helpers shared by the importers and checkpoint suites: tensors filled
// with a pattern that the Python peers (safetensors_peer.py,
// checkpoint_peer.py) compute the same way, and raw file writing for
// hand-made (and damaged) safetensors files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parity/importers/named_tensor.hpp"

namespace parity::test {

// Element i of the pattern of `dtype` (see pattern() in safetensors_peer.py):
// floats (i % 17) * 0.25 - 2, integers ((7i) % 23 - 11) scaled to the type's
// range, uint8 ((7i) % 23) * 10, bool i % 3 == 0.
double pattern_value(DType dtype, std::int64_t i);
importers::NamedTensor pattern_tensor(std::string name, DType dtype,
                                      std::vector<std::int64_t> shape);

struct TensorSpec {
  std::string name;
  DType dtype;
  std::vector<std::int64_t> shape;
};
// Every dtype, plus scalars and empty tensors: the list the Python peer
// writes and checks (TENSORS in safetensors_peer.py).
const std::vector<TensorSpec>& peer_tensor_specs();

std::string read_bytes(const std::filesystem::path& path);
void write_bytes(const std::filesystem::path& path, std::string_view bytes);
// 8-byte little-endian length (`length`, or header.size()), header, data.
void write_raw_safetensors(const std::filesystem::path& path, std::string_view header,
                           std::string_view data = {},
                           std::optional<std::uint64_t> length = std::nullopt);

}  // namespace parity::test
