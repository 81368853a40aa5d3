// The committed fixtures (encoded by protoc from tests/fixtures/mindspore/
// *.txtpb, not by our writer) read back with exactly the values their
// descriptions hold.
#include <catch2/catch.hpp>

#include "checkpoint_bytes.hpp"
#include "parity/importers/mindspore_checkpoint.hpp"

using parity::DType;
using parity::importers::NamedTensor;
using parity::importers::open_mindspore_checkpoint;
using parity::importers::TensorEntry;
using parity::test::ckpt::fixture;

namespace {

std::vector<std::string> names_of(const std::vector<TensorEntry>& entries) {
  std::vector<std::string> names;
  for (const TensorEntry& entry : entries) names.push_back(entry.name);
  return names;
}

template <class T>
void check_tensor(const parity::importers::TensorSource& source, const std::string& name,
                  DType dtype, const std::vector<std::int64_t>& shape,
                  const std::vector<T>& expected) {
  INFO(name);
  const TensorEntry* entry = source.find(name);
  REQUIRE(entry != nullptr);
  CHECK(entry->dtype == dtype);
  CHECK(entry->shape == shape);
  const NamedTensor tensor = source.read(name);
  CHECK(tensor.name == name);
  CHECK(tensor.dtype == dtype);
  CHECK(tensor.shape == shape);
  CHECK(tensor.values<T>() == expected);
}

void check_doubles(const parity::importers::TensorSource& source, const std::string& name,
                   DType dtype, const std::vector<std::int64_t>& shape,
                   const std::vector<double>& expected) {
  INFO(name);
  const NamedTensor tensor = source.read(name);
  CHECK(tensor.dtype == dtype);
  CHECK(tensor.shape == shape);
  CHECK(tensor.to_double() == expected);
}

}  // namespace

TEST_CASE("every dtype of the dtypes fixture reads with its exact values", "[unit]") {
  const auto source = open_mindspore_checkpoint(fixture("dtypes.ckpt"));
  CHECK(source->format() == "mindspore");
  CHECK(source->path() == fixture("dtypes.ckpt"));
  CHECK(names_of(source->entries()) ==
        std::vector<std::string>{"weight.f32", "weight.f64", "weight.f16", "weight.bf16",
                                 "counts.i64", "counts.i32", "counts.i16", "counts.i8", "pixels.u8",
                                 "mask.bool", "global_step", "learning_rate"});
  check_tensor<float>(*source, "weight.f32", DType::kFloat32, {2, 3},
                      {0.5f, -1.f, 2.f, 0.25f, 3.f, -0.125f});
  check_tensor<double>(*source, "weight.f64", DType::kFloat64, {2}, {1.5, -2.25});
  check_doubles(*source, "weight.f16", DType::kFloat16, {3}, {1.0, -2.0, 0.5});
  check_doubles(*source, "weight.bf16", DType::kBFloat16, {2, 2}, {1.0, -1.0, 0.5, 3.0});
  check_tensor<std::int64_t>(*source, "counts.i64", DType::kInt64, {3},
                             {1, -2, std::int64_t{1} << 40});
  check_tensor<std::int32_t>(*source, "counts.i32", DType::kInt32, {2}, {7, -7});
  check_tensor<std::int16_t>(*source, "counts.i16", DType::kInt16, {2}, {300, -300});
  check_tensor<std::int8_t>(*source, "counts.i8", DType::kInt8, {4}, {1, -1, 127, -128});
  check_tensor<std::uint8_t>(*source, "pixels.u8", DType::kUInt8, {2, 2}, {0, 1, 128, 255});
  check_doubles(*source, "mask.bool", DType::kBool, {3}, {1.0, 0.0, 1.0});
  check_tensor<std::int32_t>(*source, "global_step", DType::kInt32, {}, {42});
  check_tensor<float>(*source, "learning_rate", DType::kFloat32, {}, {0.1f});
}

TEST_CASE("a model_zoo ResNet checkpoint reads in file order with MindSpore's names", "[unit]") {
  for (const char* name : {"resnet_small.ckpt", "resnet_small_crc.ckpt"}) {
    INFO(name);
    const auto source = open_mindspore_checkpoint(fixture(name));
    CHECK(names_of(source->entries()) ==
          std::vector<std::string>{
              "conv1.weight", "bn1.gamma", "bn1.beta", "bn1.moving_mean", "bn1.moving_variance",
              "layer1.0.conv1.weight", "layer1.0.bn1.gamma", "layer1.0.down_sample_layer.0.weight",
              "layer1.0.down_sample_layer.1.gamma", "layer1.0.down_sample_layer.1.moving_mean",
              "end_point.weight", "end_point.bias", "moments.end_point.weight", "learning_rate",
              "momentum", "global_step"});
    check_tensor<float>(*source, "conv1.weight", DType::kFloat32, {2, 1, 2, 2},
                        {0.5f, -0.5f, 1.f, -1.f, 0.25f, -0.25f, 2.f, -2.f});
    check_tensor<float>(*source, "bn1.moving_variance", DType::kFloat32, {2}, {1.f, 2.f});
    check_tensor<float>(*source, "layer1.0.down_sample_layer.0.weight", DType::kFloat32,
                        {2, 2, 1, 1}, {0.5f, 0.f, 0.f, 0.5f});
    check_tensor<float>(*source, "end_point.weight", DType::kFloat32, {3, 2},
                        {0.125f, 0.25f, 0.375f, 0.5f, 0.625f, 0.75f});
    check_tensor<float>(*source, "end_point.bias", DType::kFloat32, {3}, {0.f, -1.f, 1.f});
    check_tensor<float>(*source, "momentum", DType::kFloat32, {}, {0.9f});
    check_tensor<std::int32_t>(*source, "global_step", DType::kInt32, {1}, {100});
  }
}

TEST_CASE("old scalars, split tensors and empty tensors read, non-tensor values are left out",
          "[unit]") {
  const auto source = open_mindspore_checkpoint(fixture("legacy_and_extras.ckpt"));
  // "optimizer" (a string), "random_op" and "embedding" (a map parameter) are not tensors.
  CHECK(names_of(source->entries()) ==
        std::vector<std::string>{"epoch_num", "conv.weight", "empty.bias", "fc.bias"});
  check_tensor<std::int64_t>(*source, "epoch_num", DType::kInt64, {}, {5});
  check_tensor<float>(*source, "conv.weight", DType::kFloat32, {2, 3},
                      {0.5f, 1.f, 1.5f, -0.5f, -1.f, -1.5f});
  check_tensor<float>(*source, "empty.bias", DType::kFloat32, {0}, {});
  check_doubles(*source, "fc.bias", DType::kFloat16, {2}, {0.5, -0.25});
}

TEST_CASE("an unknown tensor name is refused naming the file", "[unit]") {
  const auto source = open_mindspore_checkpoint(fixture("dtypes.ckpt"));
  CHECK(source->find("nope") == nullptr);
  try {
    source->read("nope");
    FAIL("no error");
  } catch (const parity::Error& e) {
    CHECK_THAT(e.what_failed(), Catch::Contains("no tensor named 'nope'"));
    CHECK_THAT(e.where(), Catch::Contains(fixture("dtypes.ckpt").string()));
    CHECK_THAT(e.hint(), Catch::Contains("12 tensors"));
  }
}
