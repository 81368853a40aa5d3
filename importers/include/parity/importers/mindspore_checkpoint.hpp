// MindSpore checkpoints (.ckpt): a series of protobuf Checkpoint messages
// (checkpoint.proto), one value per tensor, or per 512 MiB slice of a larger
// one, optionally ended by a CRC-32 trailer. open_mindspore_checkpoint scans
// the messages and remembers where each tensor's bytes lie without reading
// them, so that opening is cheap and read() holds one tensor at a time;
// write_mindspore_checkpoint writes what MindSpore's save_checkpoint writes.
// No MindSpore and no protobuf library is needed. The format, our sources and
// what we refuse (encrypted files, tensor types without a Parity dtype) are in
// docs/formats/mindspore-ckpt.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>

#include "parity/importers/named_tensor.hpp"
#include "parity/importers/tensor_source.hpp"

namespace parity::importers {

// save_checkpoint stores a tensor whose bytes exceed this (SLICE_SIZE,
// 512 MiB) as several values with the same tag.
inline constexpr std::uint64_t kMindsporeSliceBytes = std::uint64_t{512} << 20;

struct MindsporeWriteOptions {
  // End the file with the trailer of save_checkpoint(crc_check=True): "crc_num"
  // and the CRC-32 of every byte before it.
  bool crc_trailer = false;
  // Tensors with more bytes than this are split into values of this many bytes
  // (MindSpore's size); tests pass a smaller one to exercise the split.
  std::uint64_t slice_bytes = kMindsporeSliceBytes;
};

// Opens a MindSpore checkpoint as a TensorSource (format "mindspore"): the
// entries are its tensors in file order, a split tensor as one entry; the
// strings, random generator state and map parameters a checkpoint may also
// hold are left out. A CRC trailer, when present, is checked against the
// whole file. Throws parity::Error naming the file, the tag and the byte
// offset for any fault, and for an encrypted checkpoint.
std::unique_ptr<TensorSource> open_mindspore_checkpoint(const std::filesystem::path& path);

// Writes `tensors` in the given order, one value per tensor (per slice for a
// tensor above options.slice_bytes), as save_checkpoint does; a scalar has no
// dims. An empty tensor gets one value with empty content (save_checkpoint
// would write none and lose it). Throws parity::Error, removing the partial
// file, for an inconsistent tensor, a repeated name, the name MindSpore
// reserves ("random_op"), or an I/O failure.
void write_mindspore_checkpoint(const std::filesystem::path& path,
                                std::span<const NamedTensor> tensors,
                                const MindsporeWriteOptions& options = {});

}  // namespace parity::importers
