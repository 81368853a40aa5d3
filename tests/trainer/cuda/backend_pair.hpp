// The two backends a [gpu] test compares: the CPU backend is the reference,
// the CUDA one is made only where a GPU is usable. On a machine without one
// a [gpu] test prints "SKIPPED: <why>" and ctest reports it skipped.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <iostream>
#include <memory>
#include <random>
#include <vector>

#include "parity/trainer/backend/cpu_backend.hpp"
#include "parity/trainer/backend/cuda_backend.hpp"
#include "random_floats.hpp"

namespace cuda_test {

using namespace parity::trainer;

inline bool skip_without_gpu() {
  const std::string reason = cuda_device_unavailable_reason();
  if (reason.empty()) return false;
  std::cout << "SKIPPED: " << reason << "\n";
  return true;
}

inline Backend& cpu() {
  static const std::unique_ptr<Backend> backend = make_cpu_backend({1, true});
  return *backend;
}

inline Backend& gpu() {
  static const std::unique_ptr<Backend> backend = make_cuda_backend({});
  return *backend;
}

// A CUDA backend computing in `precision` (float32: the one above).
inline Backend& gpu(Precision precision) {
  if (precision == Precision::kFloat32) return gpu();
  if (precision == Precision::kFloat16) {
    static const std::unique_ptr<Backend> half =
        make_cuda_backend({.precision = Precision::kFloat16});
    return *half;
  }
  static const std::unique_ptr<Backend> bfloat =
      make_cuda_backend({.precision = Precision::kBFloat16});
  return *bfloat;
}

// max |got - want| / max |want|: the "relative error".
inline double relative_error(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  double scale = 1e-30, worst = 0.0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    scale = std::max(scale, double(std::abs(want[i])));
    worst = std::max(worst, std::abs(double(got[i]) - double(want[i])));
  }
  return worst / scale;
}

// ||got - want|| / ||want|| (Euclidean): for gradients, where a ReLU whose
// input is within rounding of zero passes on one backend and blocks on the
// other, moving a few sums by a lot and the rest not at all.
inline double l2_relative_error(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  double difference = 0.0, norm = 1e-60;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double d = double(got[i]) - double(want[i]);
    difference += d * d;
    norm += double(want[i]) * double(want[i]);
  }
  return std::sqrt(difference / norm);
}

// Float32 with TF32 off: both backends compute in float32 with different
// summation orders.
constexpr double kFloat32Tolerance = 1e-4;
// Float16 and bfloat16 against the CPU's float32 (the bound for
// bf16; bfloat16 keeps 8 significant bits, a relative step of 2^-8).
constexpr double kLowPrecisionTolerance = 1e-2;

inline double tolerance_of(Precision precision) {
  return precision == Precision::kFloat32 ? kFloat32Tolerance : kLowPrecisionTolerance;
}

inline void check_close(const std::vector<float>& got, const std::vector<float>& want,
                        const char* what, double tolerance = kFloat32Tolerance) {
  INFO(what);
  CHECK(relative_error(got, want) <= tolerance);
}

}  // namespace cuda_test
