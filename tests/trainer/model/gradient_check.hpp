// Helpers for checking a backend op against a float64 reference: random
// inputs, the comparison of a float result with a double reference, and the
// central-difference gradient of sum(f(v) * r).
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "naive_layers.hpp"
#include "random_floats.hpp"

inline naive::Values widen(const std::vector<float>& values) {
  return naive::Values(values.begin(), values.end());
}

// Largest |got - want| relative to the largest |want| (at least 1).
inline double relative_error(const std::vector<float>& got, const naive::Values& want) {
  REQUIRE(got.size() == want.size());
  double scale = 1.0, worst = 0.0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    scale = std::max(scale, std::abs(want[i]));
    worst = std::max(worst, std::abs(double(got[i]) - want[i]));
  }
  return worst / scale;
}

inline double dot(const naive::Values& a, const naive::Values& b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

// Checks `analytic` against d/dv sum(f(v) * r) by central differences at up
// to `samples` coordinates of `at` (all of them when there are fewer).
inline void check_gradient(const std::function<naive::Values(const naive::Values&)>& f,
                           naive::Values at, const naive::Values& r,
                           const std::vector<float>& analytic, const std::string& what,
                           std::size_t samples = 160, double tolerance = 2e-3) {
  INFO(what);
  REQUIRE(analytic.size() == at.size());
  std::vector<std::size_t> coordinates(at.size());
  for (std::size_t i = 0; i < at.size(); ++i) coordinates[i] = i;
  std::shuffle(coordinates.begin(), coordinates.end(), std::mt19937(7));
  coordinates.resize(std::min(samples, coordinates.size()));
  const double h = 1e-4;
  std::vector<double> numeric;
  double scale = 1e-2;
  for (const std::size_t i : coordinates) {
    const double saved = at[i];
    at[i] = saved + h;
    const double plus = dot(f(at), r);
    at[i] = saved - h;
    const double minus = dot(f(at), r);
    at[i] = saved;
    numeric.push_back((plus - minus) / (2 * h));
    scale = std::max(scale, std::abs(numeric.back()));
  }
  double worst = 0.0;
  std::size_t worst_at = 0;
  for (std::size_t k = 0; k < coordinates.size(); ++k) {
    const double error = std::abs(double(analytic[coordinates[k]]) - numeric[k]);
    if (error > worst) worst = error, worst_at = k;
  }
  INFO("worst at coordinate " << coordinates[worst_at] << ": analytic "
                              << analytic[coordinates[worst_at]] << ", numeric "
                              << numeric[worst_at] << ", scale " << scale);
  CHECK(worst / scale < tolerance);
}
