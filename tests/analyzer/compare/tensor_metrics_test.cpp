// The metrics compare_tensors adds for `parity compare`: ULP distance in the
// coarser dtype, checked against values stepped with nextafter, and where
// the two sides' NaN and Inf disagree; integers compared exactly.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>

#include "parity/analyzer/weights/tensor_diff.hpp"
#include "parity/analyzer/weights/tolerance_rules.hpp"

using namespace parity;
using namespace parity::analyzer;
using importers::NamedTensor;

namespace {

template <class T>
NamedTensor tensor(std::vector<T> values) {
  return NamedTensor::from_values<T>("t", {static_cast<std::int64_t>(values.size())}, values);
}

template <class T>
T step_up(T value, int ulps) {
  for (int k = 0; k < ulps; ++k) value = std::nextafter(value, std::numeric_limits<T>::infinity());
  return value;
}

NamedTensor halves(std::vector<std::uint16_t> bits) {
  NamedTensor t;
  t.name = "h";
  t.dtype = DType::kFloat16;
  t.shape = {static_cast<std::int64_t>(bits.size())};
  t.data.resize(bits.size() * 2);
  std::memcpy(t.data.data(), bits.data(), t.data.size());
  return t;
}

}  // namespace

TEST_CASE("compare: ULP distance of float32 pairs, stepped with nextafter", "[unit][compare]") {
  const float denormal = std::numeric_limits<float>::denorm_min();
  const TensorMetrics m = compare_tensors(
      tensor<float>({1.0f, 1000.0f, -2.5f, 3.0f}),
      tensor<float>({step_up(1.0f, 3), step_up(1000.0f, 17), step_up(-2.5f, 5), 3.0f}), {});
  REQUIRE(m.max_ulp_diff.has_value());
  CHECK(*m.max_ulp_diff == 17);

  // Across zero: -denormal, (-0 = +0), +denormal: two steps.
  CHECK(*compare_tensors(tensor<float>({-denormal}), tensor<float>({denormal}), {}).max_ulp_diff ==
        2);
  CHECK(*compare_tensors(tensor<float>({-0.0f}), tensor<float>({0.0f}), {}).max_ulp_diff == 0);
  // The largest float against the smallest: every finite float apart.
  const float top = std::numeric_limits<float>::max();
  CHECK(*compare_tensors(tensor<float>({-top}), tensor<float>({top}), {}).max_ulp_diff ==
        2ull * 0x7F7FFFFFull);
}

TEST_CASE("compare: ULP distance is measured in the coarser dtype", "[unit][compare]") {
  // float32 against float64: float32 ULPs. 1 + 3 * 2^-23 is three float32 steps above 1.
  const double three_ulps = 1.0 + 3.0 * std::ldexp(1.0, -23);
  CHECK(*compare_tensors(tensor<float>({1.0f}), tensor<double>({three_ulps}), {}).max_ulp_diff ==
        3);
  // A float64 difference below half a float32 ULP rounds away.
  const TensorMetrics below =
      compare_tensors(tensor<float>({1.0f}), tensor<double>({1.0 + std::ldexp(1.0, -30)}), {});
  CHECK(*below.max_ulp_diff == 0);
  CHECK(below.max_abs_diff == std::ldexp(1.0, -30));
  // float64 against float64: float64 ULPs.
  CHECK(*compare_tensors(tensor<double>({1.0, 8.0}),
                         tensor<double>({step_up(1.0, 5), step_up(8.0, 2)}), {})
             .max_ulp_diff == 5);
  // float16: 1.0 is 0x3C00; 0x3C05 is five steps above it. Against float32 the
  // float32 value is rounded to float16 first.
  CHECK(*compare_tensors(halves({0x3C00}), halves({0x3C05}), {}).max_ulp_diff == 5);
  CHECK(*compare_tensors(halves({0x3C00}), tensor<float>({1.0f + 6 * 0.0009765625f}), {})
             .max_ulp_diff == 6);
  // No ULPs between a float and an integer.
  CHECK_FALSE(compare_tensors(tensor<float>({1.0f}), tensor<std::int64_t>({1}), {})
                  .max_ulp_diff.has_value());
}

TEST_CASE("compare: NaN and Inf positions that differ are counted", "[unit][compare]") {
  const float nan = std::numeric_limits<float>::quiet_NaN(),
              inf = std::numeric_limits<float>::infinity();
  const NamedTensor a = tensor<float>({nan, 1.0f, 2.0f, inf, -inf, nan, inf, 4.0f});
  const NamedTensor b = tensor<float>({nan, 1.0f, nan, inf, inf, inf, 3.0f, 4.0f});
  const TensorMetrics m = compare_tensors(a, b, {});
  // [2] 2 vs NaN, [4] -Inf vs +Inf, [5] NaN vs Inf, [6] Inf vs 3; [0] and [3] agree.
  CHECK(m.nonfinite_mismatches == 4);
  CHECK(m.first_nonfinite_mismatch == 2);
  CHECK(m.within_tolerance == 3);  // [1], [3], [7]; NaN is never close by default

  const TensorMetrics equal_nan = compare_tensors(a, b, {}, /*equal_nan=*/true);
  CHECK(equal_nan.within_tolerance == 4);  // and [0], NaN on both sides
  CHECK(equal_nan.nonfinite_mismatches == 4);
  const TensorMetrics clean =
      compare_tensors(tensor<float>({nan, inf}), tensor<float>({nan, inf}), {}, true);
  CHECK(clean.nonfinite_mismatches == 0);
  CHECK(clean.all_close());
  CHECK(clean.all_equal());
}

TEST_CASE("compare: int64 pairs are compared exactly, even where doubles cannot tell them apart",
          "[unit][compare]") {
  // 2^53 and 2^53 + 1 are one double: read as doubles they would be equal.
  const std::int64_t big = std::int64_t{1} << 53;
  const TensorMetrics m = compare_tensors(tensor<std::int64_t>({3, big, -big - 1}),
                                          tensor<std::int64_t>({3, big + 1, -big}), {});
  CHECK(m.equal_elements == 1);
  CHECK(m.within_tolerance == 1);
  CHECK(m.max_abs_diff == 1);
  CHECK(m.max_abs_index == 1);
  CHECK_FALSE(m.all_close());
  // Extremes a double subtraction would round: the distance is exact up to double's precision.
  const std::int64_t top = std::numeric_limits<std::int64_t>::max();
  const TensorMetrics far =
      compare_tensors(tensor<std::int64_t>({top}), tensor<std::int64_t>({top - 1}), {});
  CHECK(far.max_abs_diff == 1);
  CHECK(compare_tensors(tensor<std::int64_t>({top, 0}), tensor<std::int64_t>({top, 0}), {})
            .all_equal());
  // int64 against uint8 (bool-like) and int32: by value.
  CHECK(compare_tensors(tensor<std::int64_t>({1, 0, 255}), tensor<std::uint8_t>({1, 0, 255}), {})
            .all_equal());
  CHECK(compare_tensors(tensor<std::int32_t>({-7}), tensor<std::int64_t>({-6}), {}).max_abs_diff ==
        1);
}

TEST_CASE("compare: --rtol/--atol loosen floating pairs only; integer pairs stay exact",
          "[unit][compare]") {
  ToleranceRules rules;
  rules.rtol = 1e-3;
  rules.atol = 1e-3;
  const Tolerance counter = rules.pick("bn1.num_batches_tracked", "bn1.num_batches_tracked",
                                       DType::kInt64, DType::kInt64);
  CHECK(counter.rtol == 0);
  CHECK(counter.atol == 0);
  // 1000 against 1001 would pass rtol 1e-3.
  CHECK_FALSE(compare_tensors(tensor<std::int64_t>({1001}), tensor<std::int64_t>({1000}), counter)
                  .all_close());
  CHECK(rules.pick("w", "w", DType::kFloat32, DType::kFloat32).rtol == 1e-3);
  CHECK(rules.pick("x", "x", DType::kInt64, DType::kFloat32).atol == 1e-3);
  // A --tol rule naming it is the user's explicit word.
  rules.overrides.push_back({"*.num_batches_tracked", {0, 1}});
  CHECK(rules.pick("bn1.num_batches_tracked", "b", DType::kInt64, DType::kInt64).atol == 1);
}
