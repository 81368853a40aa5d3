#include "parity/importers/named_tensor.hpp"

#include <bit>

namespace parity::importers {

static_assert(std::endian::native == std::endian::little,
              "tensor bytes are little-endian in every format we read; a big-endian host would "
              "need byte swapping");

namespace {

template <class T>
T load(const std::byte* bytes) {
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

}  // namespace

std::optional<std::int64_t> checked_element_count(std::span<const std::int64_t> shape) {
  std::int64_t count = 1;
  for (const std::int64_t dim : shape) {
    if (dim < 0) return std::nullopt;
    if (__builtin_mul_overflow(count, dim, &count)) return std::nullopt;
  }
  return count;
}

std::optional<std::int64_t> checked_byte_size(DType dtype, std::span<const std::int64_t> shape) {
  const auto count = checked_element_count(shape);
  if (!count) return std::nullopt;
  std::int64_t bytes = 0;
  if (__builtin_mul_overflow(*count, static_cast<std::int64_t>(dtype_size(dtype)), &bytes))
    return std::nullopt;
  return bytes;
}

std::string shape_to_string(std::span<const std::int64_t> shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

std::int64_t NamedTensor::element_count() const {
  const auto count = checked_element_count(shape);
  if (!count)
    throw Error("tensor '" + name + "' has an invalid shape " + shape_to_string(shape) +
                    " (a negative dimension, or more elements than int64 holds)",
                name);
  return *count;
}

std::int64_t NamedTensor::expected_byte_size() const {
  const auto bytes = checked_byte_size(dtype, shape);
  if (!bytes)
    throw Error("tensor '" + name + "' has an invalid shape " + shape_to_string(shape) +
                    " (a negative dimension, or more bytes than int64 holds)",
                name);
  return *bytes;
}

bool NamedTensor::is_consistent() const {
  const auto bytes = checked_byte_size(dtype, shape);
  return bytes && static_cast<std::uint64_t>(*bytes) == data.size();
}

void NamedTensor::check(std::string_view where) const {
  std::string location = where.empty() ? std::string() : std::string(where) + ", ";
  location += "tensor '" + name + "'";
  const auto bytes = checked_byte_size(dtype, shape);
  if (!bytes)
    throw Error("invalid shape " + shape_to_string(shape) +
                    " (a negative dimension, or more bytes than int64 holds)",
                location);
  if (static_cast<std::uint64_t>(*bytes) != data.size())
    throw Error("tensor holds " + std::to_string(data.size()) + " bytes, but " +
                    std::string(dtype_name(dtype)) + " " + shape_to_string(shape) + " needs " +
                    std::to_string(*bytes),
                location, "the data must be C-contiguous with exactly one element per index");
}

std::vector<double> NamedTensor::to_double() const {
  check();
  const std::size_t count = static_cast<std::size_t>(element_count());
  const std::size_t size = dtype_size(dtype);
  std::vector<double> out(count);
  const std::byte* bytes = data.data();
  for (std::size_t i = 0; i < count; ++i) {
    const std::byte* element = bytes + i * size;
    double value = 0.0;
    switch (dtype) {
      case DType::kFloat64:
        value = load<double>(element);
        break;
      case DType::kFloat32:
        value = load<float>(element);
        break;
      case DType::kFloat16:
        value = half_to_float(load<std::uint16_t>(element));
        break;
      case DType::kBFloat16:
        value = bfloat16_to_float(load<std::uint16_t>(element));
        break;
      case DType::kInt64:
        value = static_cast<double>(load<std::int64_t>(element));
        break;
      case DType::kInt32:
        value = load<std::int32_t>(element);
        break;
      case DType::kInt16:
        value = load<std::int16_t>(element);
        break;
      case DType::kInt8:
        value = load<std::int8_t>(element);
        break;
      case DType::kUInt8:
        value = load<std::uint8_t>(element);
        break;
      case DType::kBool:
        value = load<std::uint8_t>(element) != 0 ? 1.0 : 0.0;
        break;
    }
    out[i] = value;
  }
  return out;
}

}  // namespace parity::importers
