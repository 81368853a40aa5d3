// The .npy header (NumPy format versions 1.0, 2.0 and 3.0): the magic
// "\x93NUMPY", a version, the header's length (2 bytes in 1.0, 4 after), and
// a Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': ...}
// padded with spaces and a newline. The array's bytes follow it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "parity/core/dtype.hpp"

namespace parity::importers {

// Enough leading bytes to know any version's header length.
inline constexpr std::size_t kNpyPreambleBytes = 12;
// Headers of the dtypes we read are far smaller; this only stops a forged
// length from making us read megabytes of header.
inline constexpr std::uint64_t kNpyMaxHeaderBytes = 1 << 20;

struct NpyHeader {
  int major_version = 1;
  DType dtype = DType::kFloat32;
  bool big_endian = false;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
  std::uint64_t data_offset = 0;  // the whole header's length: where the data starts
  std::uint64_t data_size = 0;    // the array's bytes
};

// The whole header's length, from the first min(kNpyPreambleBytes, size)
// bytes of the file or member. Throws parity::Error at `where` for a missing
// magic, an unknown version, or a length beyond kNpyMaxHeaderBytes.
std::uint64_t npy_header_length(std::span<const std::byte> first_bytes, const std::string& where);

// Parses the whole header (npy_header_length() bytes), strictly: exactly the
// three keys, a supported descr, a bool, a tuple of non-negative integers.
NpyHeader parse_npy_header(std::span<const std::byte> header, const std::string& where);

// Reads and checks the header of an array stored in `stored_size` bytes (a
// file, a zip member), then checks that exactly the array's bytes follow it.
// `read_prefix(n)` returns the first min(n, stored_size) bytes.
using NpyPrefixReader = std::function<std::vector<std::byte>(std::uint64_t max_bytes)>;
NpyHeader read_npy_header(const NpyPrefixReader& read_prefix, std::uint64_t stored_size,
                          const std::string& where);

// The header np.save writes for `dtype` and a C-order `shape`, byte for
// byte: version 1.0 unless the dict needs 2.0's longer length, padded so the
// data starts at a multiple of 64 bytes.
std::string format_npy_header(DType dtype, std::span<const std::int64_t> shape,
                              const std::string& where);

}  // namespace parity::importers
