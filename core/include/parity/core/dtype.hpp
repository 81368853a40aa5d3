// Element types shared by the trainer, the trace schema and the importers,
// with IEEE half and bfloat16 conversions (round to nearest even).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace parity {

enum class DType : std::uint8_t {
  kFloat64, kFloat32, kFloat16, kBFloat16,
  kInt64, kInt32, kInt16, kInt8, kUInt8, kBool,
};

// Canonical lower-case name: "float32", "bfloat16", "int64", "bool", ...
std::string_view dtype_name(DType dtype);
std::size_t dtype_size(DType dtype);
bool dtype_is_floating(DType dtype);
// Accepts the canonical names and the common short forms (f32, fp16, bf16, i64, u8).
std::optional<DType> parse_dtype(std::string_view name);

float half_to_float(std::uint16_t bits);
std::uint16_t float_to_half(float value);
float bfloat16_to_float(std::uint16_t bits);
std::uint16_t float_to_bfloat16(float value);

}  // namespace parity
