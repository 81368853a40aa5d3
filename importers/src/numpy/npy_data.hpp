// From an array's bytes as a .npy file stores them (its byte order and
// memory order) to a NamedTensor's: little-endian and C order.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "numpy/npy_header.hpp"

namespace parity::importers {

// `stored` holds header.data_size bytes. Byte-swaps big-endian elements,
// transposes Fortran order to C order (one extra copy of the array), and
// refuses bool bytes other than 0 and 1 with a parity::Error at `where`.
std::vector<std::byte> npy_to_tensor_bytes(const NpyHeader& header, std::vector<std::byte> stored,
                                           const std::string& where);

}  // namespace parity::importers
