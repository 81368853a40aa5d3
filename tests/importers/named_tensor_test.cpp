#include "parity/importers/named_tensor.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "parity/core/error.hpp"
#include "safetensors_fixture.hpp"

using parity::DType;
using parity::Error;
using parity::importers::checked_byte_size;
using parity::importers::checked_element_count;
using parity::importers::NamedTensor;

TEST_CASE("element counts: scalars hold one element, empty tensors none", "[unit]") {
  using Shape = std::vector<std::int64_t>;
  CHECK(checked_element_count(Shape{}) == 1);
  CHECK(checked_element_count(Shape{0}) == 0);
  CHECK(checked_element_count(Shape{3, 0, 5}) == 0);
  CHECK(checked_element_count(Shape{2, 3, 4}) == 24);
  CHECK_FALSE(checked_element_count(Shape{2, -1}));
  const std::int64_t big = std::numeric_limits<std::int64_t>::max() / 2 + 1;
  CHECK_FALSE(checked_element_count(Shape{big, 2}));
  CHECK(checked_byte_size(DType::kFloat64, Shape{2, 3}) == 48);
  CHECK(checked_byte_size(DType::kBool, Shape{}) == 1);
  CHECK_FALSE(checked_byte_size(DType::kFloat64, Shape{big}));
  CHECK(parity::importers::shape_to_string(Shape{}) == "[]");
  CHECK(parity::importers::shape_to_string(Shape{2, 3}) == "[2, 3]");
}

TEST_CASE("typed values go in and out, and the wrong type is refused", "[unit]") {
  const std::vector<float> values{1.5f, -2.0f, 3.25f, 0.0f, 7.0f, -1.0f};
  const auto tensor = NamedTensor::from_values<float>("fc.weight", {2, 3}, values);
  CHECK(tensor.dtype == DType::kFloat32);
  CHECK(tensor.element_count() == 6);
  CHECK(tensor.expected_byte_size() == 24);
  CHECK(tensor.is_consistent());
  CHECK(tensor.values<float>() == values);
  CHECK(tensor.to_double() == std::vector<double>{1.5, -2.0, 3.25, 0.0, 7.0, -1.0});
  CHECK_THROWS_WITH(tensor.values<double>(), Catch::Contains("is float32, not float64"));

  const std::int64_t tracked = 42;
  const auto scalar =
      NamedTensor::from_values<std::int64_t>("bn1.num_batches_tracked", {}, std::span(&tracked, 1));
  CHECK(scalar.shape.empty());
  CHECK(scalar.values<std::int64_t>() == std::vector<std::int64_t>{42});

  CHECK_THROWS_AS(NamedTensor::from_values<float>("bad", {4}, values), Error);
}

TEST_CASE("an inconsistent tensor is refused naming it and the place", "[unit]") {
  NamedTensor tensor{"conv1.weight", DType::kFloat32, {2, 2}, std::vector<std::byte>(15)};
  CHECK_FALSE(tensor.is_consistent());
  try {
    tensor.check("model.safetensors");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK_THAT(e.where(), Catch::Contains("model.safetensors") && Catch::Contains("conv1.weight"));
    CHECK_THAT(e.what_failed(), Catch::Contains("15 bytes") && Catch::Contains("needs 16"));
  }
  tensor.shape = {-1, 2};
  CHECK_THROWS_WITH(tensor.check(), Catch::Contains("invalid shape [-1, 2]"));
  CHECK_THROWS_AS(tensor.element_count(), Error);
}

TEST_CASE("to_double converts every dtype exactly", "[unit]") {
  for (const auto dtype :
       {DType::kFloat64, DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kInt64,
        DType::kInt32, DType::kInt16, DType::kInt8, DType::kUInt8, DType::kBool}) {
    INFO(parity::dtype_name(dtype));
    const auto tensor = parity::test::pattern_tensor("t", dtype, {5, 7});
    const auto values = tensor.to_double();
    REQUIRE(values.size() == 35);
    for (std::int64_t i = 0; i < 35; ++i)
      CHECK(values[static_cast<std::size_t>(i)] == parity::test::pattern_value(dtype, i));
  }
  const std::uint16_t half_inf = 0x7c00;
  NamedTensor half{"h", DType::kFloat16, {1}, std::vector<std::byte>(2)};
  std::memcpy(half.data.data(), &half_inf, 2);
  CHECK(std::isinf(half.to_double()[0]));
}
