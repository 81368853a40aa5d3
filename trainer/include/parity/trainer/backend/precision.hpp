// The element type a backend computes activations in. kFloat32 is full
// precision everywhere; kFloat16 and kBFloat16 are the seeds' amp_level O2:
// convolutions, the classifier and the activations between layers in 16
// bits (float32 accumulation), batch-norm statistics, master weights,
// gradients and the optimizer in float32. kFloat64 is everything in double on
// the CPU's float64 reference backend (reference_backend.hpp). Plain C++17:
// the CUDA kernel files include it too.
#pragma once

#include <cstddef>
#include <cstdint>

namespace parity::trainer {

enum class Precision : std::uint8_t { kFloat32, kFloat16, kBFloat16, kFloat64 };

// As the config key `precision` spells it.
inline const char* precision_name(Precision precision) {
  switch (precision) {
    case Precision::kFloat16:
      return "float16";
    case Precision::kBFloat16:
      return "bfloat16";
    case Precision::kFloat64:
      return "float64";
    case Precision::kFloat32:
      break;
  }
  return "float32";
}

inline std::size_t element_size(Precision precision) {
  switch (precision) {
    case Precision::kFloat16:
    case Precision::kBFloat16:
      return 2;
    case Precision::kFloat64:
      return 8;
    case Precision::kFloat32:
      break;
  }
  return 4;
}

}  // namespace parity::trainer
