// Values rounded on the host to the storage formats of the CUDA backend's
// 16-bit precisions (round to nearest, ties to even), as its conversion
// kernels round them on the GPU.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "parity/trainer/backend/precision.hpp"

namespace cuda_test {

inline float round_to_bfloat16(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  bits &= 0xFFFF0000u;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// GCC's _Float16 conversion is IEEE round to nearest even, subnormals and
// overflow to infinity included.
inline float round_to_float16(float value) { return float(static_cast<_Float16>(value)); }

inline std::vector<float> rounded_to(parity::trainer::Precision precision,
                                     std::vector<float> values) {
  using parity::trainer::Precision;
  if (precision == Precision::kFloat32) return values;
  for (float& v : values)
    v = precision == Precision::kBFloat16 ? round_to_bfloat16(v) : round_to_float16(v);
  return values;
}

}  // namespace cuda_test
