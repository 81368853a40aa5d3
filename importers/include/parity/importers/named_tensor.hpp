// NamedTensor: one tensor read from or written to a checkpoint file, held on
// the host as its name, element type, shape and C-contiguous little-endian
// bytes. Every tensor importer returns these and every writer takes them, so
// the analyzer and the trainer see one type whatever the file format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "parity/core/dtype.hpp"
#include "parity/core/error.hpp"

namespace parity::importers {

// The DType of a C++ element type, for the typed helpers below. Half and
// bfloat16 have no C++ type: build those tensors from raw bytes.
template <class T>
struct DTypeOf;
template <>
struct DTypeOf<double> : std::integral_constant<DType, DType::kFloat64> {};
template <>
struct DTypeOf<float> : std::integral_constant<DType, DType::kFloat32> {};
template <>
struct DTypeOf<std::int64_t> : std::integral_constant<DType, DType::kInt64> {};
template <>
struct DTypeOf<std::int32_t> : std::integral_constant<DType, DType::kInt32> {};
template <>
struct DTypeOf<std::int16_t> : std::integral_constant<DType, DType::kInt16> {};
template <>
struct DTypeOf<std::int8_t> : std::integral_constant<DType, DType::kInt8> {};
template <>
struct DTypeOf<std::uint8_t> : std::integral_constant<DType, DType::kUInt8> {};
template <>
struct DTypeOf<bool> : std::integral_constant<DType, DType::kBool> {};
static_assert(sizeof(bool) == 1, "bool tensors are stored one byte per element");

// Number of elements of `shape` (1 for a scalar, shape []), or nullopt when a
// dimension is negative or the count does not fit in int64.
std::optional<std::int64_t> checked_element_count(std::span<const std::int64_t> shape);
// Bytes of a C-contiguous tensor of `shape` and `dtype`, or nullopt as above
// (or when the byte count does not fit in int64).
std::optional<std::int64_t> checked_byte_size(DType dtype, std::span<const std::int64_t> shape);

// "[2, 3, 4]"; "[]" for a scalar.
std::string shape_to_string(std::span<const std::int64_t> shape);

struct NamedTensor {
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<std::int64_t> shape;  // [] is a scalar (one element)
  std::vector<std::byte> data;      // C-contiguous, little-endian

  // Throw parity::Error naming the tensor when the shape is invalid.
  std::int64_t element_count() const;
  std::int64_t expected_byte_size() const;
  // True when the shape is valid and data holds exactly expected_byte_size() bytes.
  bool is_consistent() const;
  // Throws parity::Error naming the tensor (and `where`, e.g. a file) unless consistent.
  void check(std::string_view where = {}) const;

  // Every element converted to double (half and bfloat16 exactly, int64 rounded
  // beyond 2^53, bool as 0/1). Checks consistency first.
  std::vector<double> to_double() const;

  // Copies typed values in and out; values<T>() throws unless dtype == DTypeOf<T>.
  template <class T>
  static NamedTensor from_values(std::string name, std::vector<std::int64_t> shape,
                                 std::span<const T> values);
  template <class T>
  std::vector<T> values() const;
};

template <class T>
NamedTensor NamedTensor::from_values(std::string name, std::vector<std::int64_t> shape,
                                     std::span<const T> values) {
  NamedTensor tensor;
  tensor.name = std::move(name);
  tensor.dtype = DTypeOf<T>::value;
  tensor.shape = std::move(shape);
  tensor.data.resize(values.size_bytes());
  if (!values.empty()) std::memcpy(tensor.data.data(), values.data(), values.size_bytes());
  tensor.check();
  return tensor;
}

template <class T>
std::vector<T> NamedTensor::values() const {
  if (dtype != DTypeOf<T>::value)
    throw Error("tensor '" + name + "' is " + std::string(dtype_name(dtype)) + ", not " +
                    std::string(dtype_name(DTypeOf<T>::value)),
                name, "read it with the element type of its dtype, or use to_double()");
  check();
  std::vector<T> out(data.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), data.data(), data.size());
  return out;
}

}  // namespace parity::importers
