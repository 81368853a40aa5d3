// .npy files NumPy wrote - every dtype, big-endian, Fortran order, format
// versions 1.0 to 3.0, scalars and empty arrays - read back exactly.
#include <catch2/catch.hpp>

#include "../safetensors_fixture.hpp"
#include "numpy_fixture.hpp"
#include "parity/importers/numpy.hpp"
#include "temp_dir.hpp"

using parity::DType;
using parity::importers::NamedTensor;
using parity::importers::open_npy;

namespace {

// Opens `file`, checks its one entry, and checks its values are the peer's
// pattern for `dtype` and `shape` in C order.
void expect_pattern(const std::string& file, DType dtype, const std::vector<std::int64_t>& shape) {
  INFO(file);
  const auto path = parity::test::numpy_fixtures() / file;
  const auto source = open_npy(path);
  CHECK(source->format() == "npy");
  REQUIRE(source->entries().size() == 1);
  const std::string name = path.stem().string();
  CHECK(source->entries()[0].name == name);
  CHECK(source->entries()[0].dtype == dtype);
  CHECK(source->entries()[0].shape == shape);
  const NamedTensor tensor = source->read(name);
  CHECK(tensor.dtype == dtype);
  CHECK(tensor.shape == shape);
  CHECK(tensor.data == parity::test::pattern_tensor(name, dtype, shape).data);
}

const std::vector<std::int64_t> kShape = {2, 3, 4};

}  // namespace

TEST_CASE("NumPy's .npy files of every dtype read back exactly", "[e2e]") {
  for (const DType dtype : parity::test::numpy_dtypes()) {
    const std::string name(parity::dtype_name(dtype));
    expect_pattern("c_" + name + ".npy", dtype, kShape);
    expect_pattern("scalar_" + name + ".npy", dtype, {});
  }
}

TEST_CASE("big-endian .npy files are byte-swapped on read", "[e2e]") {
  for (const DType dtype : parity::test::numpy_dtypes())
    expect_pattern("big_" + std::string(parity::dtype_name(dtype)) + ".npy", dtype, kShape);
}

TEST_CASE("Fortran-order .npy files are read in C order", "[e2e]") {
  for (const DType dtype : parity::test::numpy_dtypes())
    expect_pattern("fortran_" + std::string(parity::dtype_name(dtype)) + ".npy", dtype, kShape);
  expect_pattern("big_fortran_int32.npy", DType::kInt32, {3, 5});
}

TEST_CASE(".npy format versions 1.0, 2.0 and 3.0 read alike", "[e2e]") {
  expect_pattern("version1.npy", DType::kFloat32, kShape);
  expect_pattern("version2.npy", DType::kFloat32, kShape);
  expect_pattern("version3.npy", DType::kFloat32, kShape);
  expect_pattern("version3_fortran.npy", DType::kInt64, kShape);
}

TEST_CASE("empty .npy arrays read as empty tensors of their shape", "[e2e]") {
  for (const auto& [file, dtype, shape] :
       {std::tuple{"empty_float32.npy", DType::kFloat32, std::vector<std::int64_t>{0, 3}},
        std::tuple{"empty_fortran_int16.npy", DType::kInt16, std::vector<std::int64_t>{3, 0, 2}}}) {
    INFO(file);
    const auto source = open_npy(parity::test::numpy_fixtures() / file);
    const NamedTensor tensor = source->read(source->entries()[0].name);
    CHECK(tensor.dtype == dtype);
    CHECK(tensor.shape == shape);
    CHECK(tensor.data.empty());
  }
}

TEST_CASE("headers in every literal form NumPy has written parse", "[unit]") {
  TempDir dir;
  const std::string data("\x01\x00\x02\x00\x03\x00", 6);
  for (const std::string& dict :
       {std::string("{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }"),
        std::string("{'descr': '<i2', 'fortran_order': False, 'shape': (3,)}"),
        std::string("{\"shape\": (3,), \"fortran_order\": False, \"descr\": \"<i2\"}"),
        std::string("{'descr':'<i2','fortran_order':False,'shape':(3L,),}"),  // Python 2
        std::string("{'descr': '=i2', 'fortran_order': True, 'shape': ( 3 , ) }")}) {
    INFO(dict);
    parity::test::write_bytes(dir / "x.npy", parity::test::npy_bytes(dict, data));
    const auto source = open_npy(dir / "x.npy");
    CHECK(source->read("x").values<std::int16_t>() == std::vector<std::int16_t>{1, 2, 3});
  }
}
