#include "parity/core/dtype.hpp"

#include <array>
#include <bit>
#include <cmath>

namespace parity {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  std::size_t size;
  bool floating;
};

constexpr std::array<DTypeInfo, 10> kDTypes{{
    {DType::kFloat64, "float64", 8, true},
    {DType::kFloat32, "float32", 4, true},
    {DType::kFloat16, "float16", 2, true},
    {DType::kBFloat16, "bfloat16", 2, true},
    {DType::kInt64, "int64", 8, false},
    {DType::kInt32, "int32", 4, false},
    {DType::kInt16, "int16", 2, false},
    {DType::kInt8, "int8", 1, false},
    {DType::kUInt8, "uint8", 1, false},
    {DType::kBool, "bool", 1, false},
}};

struct Alias {
  std::string_view alias;
  DType dtype;
};
constexpr std::array<Alias, 10> kAliases{{
    {"f64", DType::kFloat64}, {"double", DType::kFloat64}, {"f32", DType::kFloat32},
    {"float", DType::kFloat32}, {"f16", DType::kFloat16}, {"fp16", DType::kFloat16},
    {"half", DType::kFloat16}, {"bf16", DType::kBFloat16}, {"i64", DType::kInt64},
    {"u8", DType::kUInt8},
}};

const DTypeInfo& info(DType dtype) { return kDTypes[static_cast<std::size_t>(dtype)]; }

}  // namespace

std::string_view dtype_name(DType dtype) { return info(dtype).name; }
std::size_t dtype_size(DType dtype) { return info(dtype).size; }
bool dtype_is_floating(DType dtype) { return info(dtype).floating; }

std::optional<DType> parse_dtype(std::string_view name) {
  for (const auto& entry : kDTypes)
    if (entry.name == name) return entry.dtype;
  for (const auto& entry : kAliases)
    if (entry.alias == name) return entry.dtype;
  return std::nullopt;
}

float half_to_float(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1fu;
  std::uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1f)  // infinity or NaN: keep the payload
    return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent != 0)
    return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
  // zero or subnormal: value = mantissa * 2^-24, exact in float
  const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  return sign ? -magnitude : magnitude;
}

std::uint16_t float_to_half(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t abs_bits = bits & 0x7fffffffu;
  if (abs_bits >= 0x7f800000u) {  // infinity or NaN (NaN stays quiet NaN)
    const bool is_nan = abs_bits > 0x7f800000u;
    return static_cast<std::uint16_t>(sign | 0x7c00u | (is_nan ? 0x200u : 0u));
  }
  if (abs_bits >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (abs_bits < 0x38800000u) {
    // Result is subnormal or zero: round |value| * 2^24 to the nearest integer, ties to even.
    const float scaled = std::bit_cast<float>(abs_bits) * 16777216.0f;
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::nearbyint(scaled)));
  }
  // Normal: rebias the exponent, then round the 13 dropped mantissa bits to nearest even.
  std::uint32_t half = ((abs_bits >> 13) - (112u << 10));
  const std::uint32_t dropped = abs_bits & 0x1fffu;
  if (dropped > 0x1000u || (dropped == 0x1000u && (half & 1u))) ++half;
  return static_cast<std::uint16_t>(sign | half);
}

float bfloat16_to_float(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

std::uint16_t float_to_bfloat16(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u)  // NaN: keep it a quiet NaN
    return static_cast<std::uint16_t>((bits >> 16) | 0x40u);
  const std::uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

}  // namespace parity
