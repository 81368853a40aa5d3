// NumPy's .npy (one array) and .npz (a zip of .npy members, from np.savez or
// np.savez_compressed) behind TensorSource, and writers NumPy reads back with
// np.load. Format versions 1.0, 2.0 and 3.0; the dtypes float64, float32,
// float16, int64, int32, int16, int8, uint8 and bool, little- or big-endian,
// C or Fortran order (read as C order, little-endian). Object arrays (pickles),
// structured and string dtypes are refused by name. Every fault is a
// parity::Error naming the file (and the member). What we read, refuse and
// write: docs/formats/numpy.md.
#pragma once

#include <filesystem>
#include <memory>
#include <span>

#include "parity/importers/named_tensor.hpp"
#include "parity/importers/tensor_source.hpp"

namespace parity::importers {

// One tensor named after the file's stem ("weights.npy" holds "weights").
// Format "npy". The header and the data's size are checked when opening.
std::unique_ptr<TensorSource> open_npy(const std::filesystem::path& path);

// One tensor per member, named after the member without its ".npy" suffix,
// in archive order. Format "npz". Every member's header is read (inflating
// only its start) and checked against the member's size when opening; read()
// inflates one member, with its CRC-32 checked.
std::unique_ptr<TensorSource> open_npz(const std::filesystem::path& path);

// Writes the header np.save would (version 1.0 unless the header needs 2.0,
// data 64-byte aligned), then the tensor's bytes. bfloat16 is refused: NumPy
// has no such dtype. A failed write removes the partial file.
void write_npy(const std::filesystem::path& path, const NamedTensor& tensor);
// The same from raw C-order little-endian bytes, without building a
// NamedTensor (dumps write hundreds of tensors a step). `bytes` must hold
// exactly the shape's elements of `dtype`.
void write_npy(const std::filesystem::path& path, DType dtype, std::span<const std::int64_t> shape,
               std::span<const std::byte> bytes);

struct NpzWriteOptions {
  // ZIP64 records for every member even when no size needs them (to test
  // readers; Python's zipfile offers the same).
  bool force_zip64 = false;
};

// An archive np.load reads as np.savez's: member NAME.npy per tensor, stored
// (not compressed), in the given order. Names must be unique.
void write_npz(const std::filesystem::path& path, std::span<const NamedTensor> tensors,
               const NpzWriteOptions& options = {});

}  // namespace parity::importers
