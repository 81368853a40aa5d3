// Scanning a MindSpore checkpoint: walks its protobuf records, reading keys,
// tags, dims and types but never a tensor's bytes, and returns each tensor's
// entry with the file ranges of its tensor_content. Values with one tag in a
// row are the slices of one tensor (save_checkpoint splits tensors above
// 512 MiB; every slice carries the whole tensor's dims). Strings, the random
// generators' state and map parameters are not tensors and are left out. A
// CRC trailer is checked against the file's bytes; an encrypted file is
// refused. Rules and sources: docs/formats/mindspore-ckpt.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "parity/importers/tensor_source.hpp"
#include "protobuf/protobuf_wire_reader.hpp"

namespace parity::importers::mindspore {

struct ScannedTensor {
  TensorEntry entry;
  std::vector<protobuf::ByteRange> slices;  // tensor_content of each value, in file order
};

// Scans the open file `fd` of `file_size` bytes. Throws parity::Error naming
// the file, the tag and the byte offset for every fault: truncation, bad
// varints, lengths past the end, wrong wire types, negative dims, content
// sizes that disagree with dims and type, unknown tensor types, a tag
// repeated apart from its slices, a CRC mismatch or an encrypted file.
std::vector<ScannedTensor> scan_checkpoint(int fd, const std::filesystem::path& path,
                                           std::uint64_t file_size);

}  // namespace parity::importers::mindspore
