// compare_tensors against a naive float64 reference, and the dtype defaults.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "parity/analyzer/weights/tensor_diff.hpp"
#include "parity/core/error.hpp"

using namespace parity;
using namespace parity::analyzer;
using importers::NamedTensor;

namespace {

NamedTensor floats(std::vector<float> values, std::vector<std::int64_t> shape = {}) {
  if (shape.empty()) shape = {static_cast<std::int64_t>(values.size())};
  return NamedTensor::from_values<float>("t", shape, values);
}

}  // namespace

TEST_CASE("compare_tensors agrees with a naive float64 reference", "[unit][weights]") {
  std::mt19937 random(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> a(1000), b(1000);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = normal(random);
    b[i] = i % 3 == 0 ? a[i] : a[i] + 1e-3f * normal(random);
  }
  b[10] = 0.0f;  // a relative difference against zero is infinite
  const Tolerance tolerance{1e-3, 1e-4};
  const TensorMetrics m = compare_tensors(floats(a, {10, 100}), floats(b, {10, 100}), tolerance);

  double max_abs = 0, sum_abs = 0, dot = 0, na = 0, nb = 0;
  std::int64_t max_index = -1, within = 0, equal = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double x = a[i], y = b[i], d = std::abs(x - y);
    if (d > max_abs) max_abs = d, max_index = static_cast<std::int64_t>(i);
    sum_abs += d;
    within += d <= tolerance.atol + tolerance.rtol * std::abs(y) ? 1 : 0;
    equal += x == y ? 1 : 0;
    dot += x * y, na += x * x, nb += y * y;
  }
  CHECK(m.elements == 1000);
  CHECK(m.equal_elements == equal);
  CHECK(m.within_tolerance == within);
  CHECK(m.max_abs_diff == max_abs);
  CHECK(m.max_abs_index == max_index);
  CHECK(std::isinf(m.max_rel_diff));
  CHECK(m.max_rel_index == 10);
  CHECK(m.mean_abs_diff == Approx(sum_abs / 1000).epsilon(1e-12));
  CHECK(m.cosine_similarity == Approx(dot / std::sqrt(na * nb)).epsilon(1e-12));
  CHECK_FALSE(m.all_close());
}

TEST_CASE("compare_tensors: NaN is never close, equal infinities are", "[unit][weights]") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const TensorMetrics m = compare_tensors(floats({1, nan, inf, 2}), floats({1, nan, inf, 2}), {});
  CHECK(m.nan_elements == 1);
  CHECK(m.within_tolerance == 3);
  CHECK_FALSE(m.all_close());
  const TensorMetrics opposite = compare_tensors(floats({inf}), floats({-inf}), {1, 1});
  CHECK(std::isinf(opposite.max_abs_diff));
  CHECK_FALSE(opposite.all_close());
}

TEST_CASE("compare_tensors across dtypes reads each exactly", "[unit][weights]") {
  // 0.1 in float16 is 0.0999755859375; float32 0.1 differs from it by ~2.4e-5.
  NamedTensor half;
  half.name = "h";
  half.dtype = DType::kFloat16;
  half.shape = {2};
  const std::uint16_t bits[2] = {float_to_half(0.1f), float_to_half(-2.0f)};
  half.data.resize(4);
  std::memcpy(half.data.data(), bits, 4);
  const TensorMetrics m = compare_tensors(half, floats({0.1f, -2.0f}), default_tolerance(DType::kFloat16, DType::kFloat32));
  CHECK(m.equal_elements == 1);
  CHECK(m.max_abs_diff == Approx(std::abs(static_cast<double>(half_to_float(bits[0])) - static_cast<double>(0.1f))));
  CHECK(m.all_close());  // within float16's rtol 1e-3
  const TensorMetrics strict = compare_tensors(half, floats({0.1f, -2.0f}), default_tolerance(DType::kFloat32));
  CHECK_FALSE(strict.all_close());
}

TEST_CASE("compare_tensors: cosine of zero tensors, count mismatch", "[unit][weights]") {
  CHECK(compare_tensors(floats({0, 0}), floats({0, 0}), {}).cosine_similarity == 1);
  CHECK(compare_tensors(floats({0, 0}), floats({1, 0}), {}).cosine_similarity == 0);
  CHECK_THROWS_AS(compare_tensors(floats({1, 2}), floats({1, 2, 3}), {}), Error);
}

TEST_CASE("default tolerances follow torch.testing.assert_close", "[unit][weights]") {
  CHECK(default_tolerance(DType::kFloat32).rtol == 1.3e-6);
  CHECK(default_tolerance(DType::kFloat32).atol == 1e-5);
  CHECK(default_tolerance(DType::kFloat16).rtol == 1e-3);
  CHECK(default_tolerance(DType::kBFloat16).rtol == 1.6e-2);
  CHECK(default_tolerance(DType::kFloat64).atol == 1e-7);
  CHECK(default_tolerance(DType::kInt64).rtol == 0);
  CHECK(default_tolerance(DType::kFloat32, DType::kBFloat16).rtol == 1.6e-2);
}
