#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "parity/core/dtype.hpp"

using namespace parity;

namespace {

// Naive reference: the representable value nearest to `x`, ties to the one
// with an even bit pattern, found by scanning every finite non-negative code.
std::uint16_t nearest_code(double x, const std::vector<double>& values, std::uint16_t max_code) {
  const double magnitude = std::fabs(x);
  const auto upper = std::lower_bound(values.begin(), values.end(), magnitude);
  std::uint16_t code;
  if (upper == values.end()) {
    code = max_code;
  } else if (upper == values.begin()) {
    code = 0;
  } else {
    const auto hi = static_cast<std::uint16_t>(upper - values.begin());
    const auto lo = static_cast<std::uint16_t>(hi - 1);
    const double below = magnitude - values[lo], above = values[hi] - magnitude;
    code = below < above ? lo : above < below ? hi : (lo % 2 == 0 ? lo : hi);
  }
  return static_cast<std::uint16_t>(code | (std::signbit(x) ? 0x8000u : 0u));
}

}  // namespace

TEST_CASE("dtype names, sizes and parsing", "[unit]") {
  CHECK(dtype_name(DType::kBFloat16) == "bfloat16");
  CHECK(dtype_size(DType::kFloat64) == 8);
  CHECK(dtype_size(DType::kBool) == 1);
  CHECK(dtype_is_floating(DType::kFloat16));
  CHECK_FALSE(dtype_is_floating(DType::kInt8));
  CHECK(parse_dtype("float32") == DType::kFloat32);
  CHECK(parse_dtype("bf16") == DType::kBFloat16);
  CHECK(parse_dtype("fp16") == DType::kFloat16);
  CHECK_FALSE(parse_dtype("float8").has_value());
}

TEST_CASE("half to float is exact for every code and round-trips", "[unit]") {
  for (std::uint32_t code = 0; code < 0x10000u; ++code) {
    const auto bits = static_cast<std::uint16_t>(code);
    const float value = half_to_float(bits);
    const std::uint32_t exponent = (code >> 10) & 0x1f, mantissa = code & 0x3ff;
    if (exponent == 0x1f && mantissa != 0) {
      CHECK(std::isnan(value));
      CHECK((float_to_half(value) & 0x7c00u) == 0x7c00u);
      continue;
    }
    double expected = exponent == 0 ? std::ldexp(mantissa, -24)
                      : exponent == 0x1f ? INFINITY
                                         : std::ldexp(1024 + mantissa, static_cast<int>(exponent) - 25);
    if (code & 0x8000u) expected = -expected;
    REQUIRE(static_cast<double>(value) == expected);
    REQUIRE(float_to_half(value) == bits);
  }
}

TEST_CASE("float to half rounds to nearest even like a naive reference", "[unit]") {
  std::vector<double> values;  // every finite non-negative half, ascending
  for (std::uint16_t code = 0; code <= 0x7bff; ++code) values.push_back(half_to_float(code));
  std::mt19937 random(1234);
  std::uniform_real_distribution<float> exponent(-27.0f, 17.0f);
  for (int i = 0; i < 200000; ++i) {
    float x = std::ldexp(1.0f + static_cast<float>(random() % 1000000) / 1e6f,
                         static_cast<int>(exponent(random)));
    if (random() % 2) x = -x;
    if (std::fabs(x) >= 65520.0f) {  // beyond max half + half an ulp: infinity
      REQUIRE((float_to_half(x) & 0x7fffu) == 0x7c00u);
      continue;
    }
    REQUIRE(float_to_half(x) == nearest_code(x, values, 0x7bff));
  }
  // Ties: 1 + 2^-11 lies halfway between 1 and the next half; even wins.
  CHECK(float_to_half(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);
  CHECK(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);
}

TEST_CASE("bfloat16 conversion rounds to nearest even and keeps NaN", "[unit]") {
  std::vector<double> values;
  for (std::uint16_t code = 0; code <= 0x7f7f; ++code) values.push_back(bfloat16_to_float(code));
  std::mt19937 random(99);
  for (int i = 0; i < 200000; ++i) {
    const float x = std::bit_cast<float>(static_cast<std::uint32_t>(random()) & 0xbf7fffffu);
    if (!std::isfinite(x)) continue;
    REQUIRE(float_to_bfloat16(x) == nearest_code(x, values, 0x7f7f));
  }
  CHECK(std::isnan(bfloat16_to_float(float_to_bfloat16(NAN))));
  CHECK(bfloat16_to_float(float_to_bfloat16(1.5f)) == 1.5f);
}
