// NumPy's dtype strings ("descr") for the dtypes Parity holds: '<f8', '<f4',
// '<f2', '<i8', '<i4', '<i2', '|i1', '|u1', '|b1', and the big-endian '>'
// forms. Everything else is refused by name.
#pragma once

#include <string>
#include <string_view>

#include "parity/core/dtype.hpp"

namespace parity::importers {

struct NpyDType {
  DType dtype = DType::kFloat32;
  bool big_endian = false;
};

// '<' is little-endian, '>' big-endian, '=' native (little: NumPy itself
// never writes '='); one-byte types also take '|' (no byte order). Throws
// parity::Error at `where`, naming the descr, for anything else.
NpyDType parse_npy_descr(std::string_view descr, const std::string& where);

// The descr NumPy writes for `dtype` ('<f4', '|u1', ...). Throws for
// bfloat16, which NumPy has no dtype for.
std::string npy_descr(DType dtype, const std::string& where);

}  // namespace parity::importers
