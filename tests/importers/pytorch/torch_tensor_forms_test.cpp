// Tensor forms that PyTorch 1.13 does not write but other versions do
// (PyTorch 0.4's _rebuild_tensor, PyTorch 2's _rebuild_tensor_v3 over an
// untyped storage and _rebuild_parameter_with_state), in hand-made files.
#include <catch2/catch.hpp>

#include "expect_error.hpp"
#include "parity/importers/torch_checkpoint.hpp"
#include "temp_dir.hpp"
#include "torch_fixture.hpp"

using parity::importers::open_torch_checkpoint;
using parity::test::expect_error;
using parity::test::PickleBuilder;
using parity::test::write_legacy_checkpoint;

namespace {

// The persistent id of storage `key`: ('storage', module.name, key, 'cpu', numel).
PickleBuilder& storage(PickleBuilder& builder, std::string_view module, std::string_view name,
                       std::int64_t numel) {
  return builder.mark()
      .str("storage")
      .global(module, name)
      .str("k")
      .str("cpu")
      .integer(numel)
      .op('t')
      .op('Q');
}

// {"t": <value>} as a whole pickle.
std::string holding(const PickleBuilder& value) {
  return PickleBuilder().proto(2).op('}').str("t").raw(value.bytes()).op('s').stop().bytes();
}

std::string four_floats() {
  std::string bytes;
  for (const float value : {1.5f, -2.0f, 0.25f, 8.0f})
    bytes.append(reinterpret_cast<const char*>(&value), 4);
  return bytes;
}

}  // namespace

TEST_CASE("PyTorch 2's _rebuild_tensor_v3 over an untyped storage reads with its dtype", "[unit]") {
  TempDir temp;
  PickleBuilder v3;
  v3.global("torch._utils", "_rebuild_tensor_v3").mark();
  storage(v3, "torch.storage", "UntypedStorage", 16);
  v3.integer(1).ints({3}).ints({1}).op('\x89').global("collections", "OrderedDict").op(')').op('R');
  v3.global("torch", "float32").op('t').op('R');
  write_legacy_checkpoint(temp / "v3.pth", holding(v3), {{"k", 16, four_floats()}});
  const auto source = open_torch_checkpoint(temp / "v3.pth");
  const auto tensor = source->read("t");
  CHECK(tensor.dtype == parity::DType::kFloat32);
  CHECK(tensor.values<float>() == std::vector<float>{-2.0f, 0.25f, 8.0f});

  PickleBuilder uint16;
  uint16.global("torch._utils", "_rebuild_tensor_v3").mark();
  storage(uint16, "torch.storage", "UntypedStorage", 16);
  uint16.integer(0)
      .ints({8})
      .ints({1})
      .op('\x89')
      .op('N')
      .global("torch", "uint16")
      .op('t')
      .op('R');
  write_legacy_checkpoint(temp / "uint16.pth", holding(uint16), {{"k", 16, four_floats()}});
  expect_error([&] { open_torch_checkpoint(temp / "uint16.pth"); },
               "its dtype uint16 is not supported",
               {(temp / "uint16.pth").string() + ", tensor 't'"});
}

TEST_CASE("PyTorch 0.4's _rebuild_tensor and PyTorch 2's Parameter with state read", "[unit]") {
  TempDir temp;
  PickleBuilder tensor;
  tensor.global("torch._utils", "_rebuild_tensor").mark();
  storage(tensor, "torch", "FloatStorage", 4);
  tensor.integer(0).ints({2, 2}).ints({1, 2}).op('t').op('R');
  PickleBuilder parameter;
  parameter.global("torch._utils", "_rebuild_parameter_with_state").mark().raw(tensor.bytes());
  parameter.op('\x88').op('N').op('}').op('t').op('R');
  write_legacy_checkpoint(temp / "old.pth", holding(parameter), {{"k", 4, four_floats()}});
  const auto source = open_torch_checkpoint(temp / "old.pth");
  REQUIRE(source->entries().size() == 1);
  CHECK(source->entries()[0].shape == std::vector<std::int64_t>{2, 2});
  CHECK(source->read("t").values<float>() == std::vector<float>{1.5f, 0.25f, -2.0f, 8.0f});
  expect_error([&] { source->read("missing"); }, "no tensor named 'missing'", temp / "old.pth");
}
