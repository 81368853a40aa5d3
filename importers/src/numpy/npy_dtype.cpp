#include "numpy/npy_dtype.hpp"

#include <array>

#include "parity/core/error.hpp"

namespace parity::importers {
namespace {

struct DescrCode {
  DType dtype;
  std::string_view code;  // kind letter and size in bytes
};
constexpr std::array<DescrCode, 9> kDescrCodes{{
    {DType::kFloat64, "f8"},
    {DType::kFloat32, "f4"},
    {DType::kFloat16, "f2"},
    {DType::kInt64, "i8"},
    {DType::kInt32, "i4"},
    {DType::kInt16, "i2"},
    {DType::kInt8, "i1"},
    {DType::kUInt8, "u1"},
    {DType::kBool, "b1"},
}};

constexpr std::string_view kSupportedHint =
    "Parity reads NumPy arrays of float64, float32, float16, int64, int32, int16, int8, uint8 "
    "and bool; convert the array before saving it, e.g. array.astype(np.float32)";

// What the kind letter of a refused descr means, to say more than the code.
std::string_view kind_meaning(char kind) {
  switch (kind) {
    case 'u':
      return "unsigned integers";
    case 'c':
      return "complex numbers";
    case 'f':
      return "floating point of that size";
    case 'i':
      return "integers of that size";
    case 'U':
      return "unicode strings";
    case 'S':
    case 'a':
      return "byte strings";
    case 'V':
      return "raw or structured records";
    case 'M':
      return "datetimes";
    case 'm':
      return "timedeltas";
    default:
      return "an unknown kind";
  }
}

}  // namespace

NpyDType parse_npy_descr(std::string_view descr, const std::string& where) {
  const char order = descr.empty() ? '\0' : descr.front();
  const std::string_view code = descr.empty() ? descr : descr.substr(1);
  for (const DescrCode& entry : kDescrCodes) {
    if (entry.code != code) continue;
    const bool one_byte = dtype_size(entry.dtype) == 1;
    if (order == '<' || order == '=' || order == '>' || (order == '|' && one_byte))
      return {entry.dtype, order == '>' && !one_byte};
    throw Error("dtype '" + std::string(descr) + "' has no valid byte order", where,
                "a multi-byte NumPy dtype starts with '<' (little-endian) or '>' (big-endian)");
  }
  if (code.size() >= 1 && code.front() == 'O')
    throw Error("dtype '" + std::string(descr) + "' (Python objects) is not supported", where,
                "an object array is a pickle, and Parity never unpickles (it can run code); "
                "save a numeric array instead");
  throw Error("dtype '" + std::string(descr) + "' (" +
                  std::string(kind_meaning(code.empty() ? '\0' : code.front())) +
                  ") is not supported",
              where, std::string(kSupportedHint));
}

std::string npy_descr(DType dtype, const std::string& where) {
  for (const DescrCode& entry : kDescrCodes)
    if (entry.dtype == dtype) return (dtype_size(dtype) == 1 ? "|" : "<") + std::string(entry.code);
  throw Error("NumPy has no " + std::string(dtype_name(dtype)) + " dtype", where,
              "convert the tensor to float32 first (bfloat16 converts exactly)");
}

}  // namespace parity::importers
