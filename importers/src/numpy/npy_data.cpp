#include "numpy/npy_data.hpp"

#include <algorithm>
#include <cstring>

#include "parity/core/error.hpp"

namespace parity::importers {
namespace {

void swap_byte_order(std::vector<std::byte>& data, std::size_t element_size) {
  for (std::size_t at = 0; at + element_size <= data.size(); at += element_size)
    std::reverse(data.begin() + static_cast<std::ptrdiff_t>(at),
                 data.begin() + static_cast<std::ptrdiff_t>(at + element_size));
}

void check_bools(const std::vector<std::byte>& data, const std::string& where) {
  for (std::size_t i = 0; i < data.size(); ++i)
    if (std::to_integer<unsigned>(data[i]) > 1)
      throw Error("bool element " + std::to_string(i) + " (in file order) is " +
                      std::to_string(std::to_integer<unsigned>(data[i])) + ", not 0 or 1",
                  where, "the array's bytes are damaged");
}

// Walks the Fortran-order source in storage order (first index fastest) and
// drops each element at its C-order place, tracking that place incrementally.
std::vector<std::byte> fortran_to_c_order(const std::vector<std::byte>& source,
                                          const std::vector<std::int64_t>& shape,
                                          std::size_t element_size) {
  const std::size_t rank = shape.size();
  std::vector<std::size_t> c_strides(rank, element_size);
  for (std::size_t k = rank - 1; k-- > 0;)
    c_strides[k] = c_strides[k + 1] * static_cast<std::size_t>(shape[k + 1]);
  std::vector<std::byte> out(source.size());
  std::vector<std::int64_t> index(rank, 0);
  std::size_t target = 0;
  for (std::size_t at = 0; at < source.size(); at += element_size) {
    std::memcpy(out.data() + target, source.data() + at, element_size);
    for (std::size_t k = 0; k < rank; ++k) {
      target += c_strides[k];
      if (++index[k] < shape[k]) break;
      target -= c_strides[k] * static_cast<std::size_t>(shape[k]);
      index[k] = 0;
    }
  }
  return out;
}

}  // namespace

std::vector<std::byte> npy_to_tensor_bytes(const NpyHeader& header, std::vector<std::byte> stored,
                                           const std::string& where) {
  const std::size_t element_size = dtype_size(header.dtype);
  if (header.big_endian) swap_byte_order(stored, element_size);
  if (header.dtype == DType::kBool) check_bools(stored, where);
  if (header.fortran_order && header.shape.size() > 1)
    return fortran_to_c_order(stored, header.shape, element_size);
  return stored;
}

}  // namespace parity::importers
