// write_npy and write_npz: what we write NumPy reads back exactly (byte for
// byte what np.save writes, for .npy), our readers read it back, and what
// NumPy cannot hold is refused without leaving a file behind.
#include <catch2/catch.hpp>

#include "../safetensors_fixture.hpp"
#include "expect_error.hpp"
#include "file_size_limit.hpp"
#include "numpy_fixture.hpp"
#include "parity/importers/numpy.hpp"
#include "temp_dir.hpp"

using parity::DType;
using parity::importers::NamedTensor;
using parity::test::pattern_tensor;

namespace {

const std::vector<std::int64_t> kShape = {2, 3, 4};

// Every dtype (named after it) plus a scalar and an empty tensor: the list
// numpy_peer.py's check expects.
std::vector<NamedTensor> peer_tensors() {
  std::vector<NamedTensor> tensors;
  for (const DType dtype : parity::test::numpy_dtypes())
    tensors.push_back(pattern_tensor(std::string(parity::dtype_name(dtype)), dtype, kShape));
  tensors.push_back(pattern_tensor("scalar", DType::kFloat64, {}));
  tensors.push_back(pattern_tensor("empty", DType::kInt8, {0, 4}));
  return tensors;
}

void expect_same(const NamedTensor& got, const NamedTensor& want) {
  INFO(want.name);
  CHECK(got.name == want.name);
  CHECK(got.dtype == want.dtype);
  CHECK(got.shape == want.shape);
  CHECK(got.data == want.data);
}

}  // namespace

TEST_CASE("NumPy reads what write_npy and write_npz wrote, exactly", "[e2e]") {
  TempDir dir;
  const auto tensors = peer_tensors();
  for (const NamedTensor& tensor : tensors)
    parity::importers::write_npy(dir / ("parity_" + tensor.name + ".npy"), tensor);
  parity::importers::write_npz(dir / "parity.npz", tensors);
  parity::importers::write_npz(dir / "parity_zip64.npz", tensors, {.force_zip64 = true});
  CHECK_THAT(parity::test::run_numpy_peer("check", dir.path()), Catch::Contains("OK 11 arrays"));
}

TEST_CASE("written .npy and .npz files read back through our readers", "[unit]") {
  TempDir dir;
  const auto tensors = peer_tensors();
  for (const NamedTensor& tensor : tensors) {
    const auto path = dir / (tensor.name + ".npy");
    parity::importers::write_npy(path, tensor);
    expect_same(parity::importers::open_npy(path)->read(tensor.name), tensor);
  }
  for (const bool zip64 : {false, true}) {
    const auto path = dir / "all.npz";
    parity::importers::write_npz(path, tensors, {.force_zip64 = zip64});
    const auto source = parity::importers::open_npz(path);
    REQUIRE(source->entries().size() == tensors.size());
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      CHECK(source->entries()[i].name == tensors[i].name);
      expect_same(source->read(tensors[i].name), tensors[i]);
    }
  }
}

TEST_CASE("the data of a written .npy starts 64-byte aligned", "[unit]") {
  TempDir dir;
  for (const auto& shape : {std::vector<std::int64_t>{}, std::vector<std::int64_t>{7},
                            std::vector<std::int64_t>{123456789, 0, 1, 2, 3, 4, 5, 6, 7, 8}}) {
    const auto path = dir / "t.npy";
    parity::importers::write_npy(path, pattern_tensor("t", DType::kFloat32, shape));
    const std::string bytes = parity::test::read_bytes(path);
    CHECK(bytes[6] == 1);  // version 1.0
    const std::uint64_t data_offset = 10 + parity::test::get_le(bytes, 8, 2);
    CHECK(data_offset % 64 == 0);
    CHECK(bytes[data_offset - 1] == '\n');
  }
}

TEST_CASE("a header too long for version 1.0 is written as version 2.0", "[unit]") {
  TempDir dir;
  const auto path = dir / "many_dims.npy";
  const NamedTensor tensor =
      pattern_tensor("many_dims", DType::kInt8, std::vector<std::int64_t>(30000, 1));
  parity::importers::write_npy(path, tensor);
  const std::string bytes = parity::test::read_bytes(path);
  CHECK(bytes[6] == 2);
  CHECK((12 + parity::test::get_le(bytes, 8, 4)) % 64 == 0);
  expect_same(parity::importers::open_npy(path)->read("many_dims"), tensor);
}

TEST_CASE("bfloat16 is refused with a hint to convert, leaving no file", "[unit]") {
  TempDir dir;
  const auto tensor = pattern_tensor("w", DType::kBFloat16, {2});
  parity::test::expect_error([&] { parity::importers::write_npy(dir / "w.npy", tensor); },
                             "NumPy has no bfloat16 dtype", dir / "w.npy", "tensor 'w'");
  CHECK_FALSE(std::filesystem::exists(dir / "w.npy"));
  const std::vector<NamedTensor> tensors = {pattern_tensor("ok", DType::kFloat32, {2}), tensor};
  parity::test::expect_error([&] { parity::importers::write_npz(dir / "w.npz", tensors); },
                             "NumPy has no bfloat16 dtype", dir / "w.npz", "tensor 'w'");
  CHECK_FALSE(std::filesystem::exists(dir / "w.npz"));
}

TEST_CASE("an inconsistent tensor or duplicate names are refused", "[unit]") {
  TempDir dir;
  NamedTensor broken = pattern_tensor("b", DType::kFloat32, {2});
  broken.data.pop_back();
  CHECK_THROWS_AS(parity::importers::write_npy(dir / "b.npy", broken), parity::Error);
  CHECK_FALSE(std::filesystem::exists(dir / "b.npy"));
  const std::vector<NamedTensor> twins = {pattern_tensor("a", DType::kInt8, {1}),
                                          pattern_tensor("a", DType::kInt8, {2})};
  parity::test::expect_error([&] { parity::importers::write_npz(dir / "twins.npz", twins); },
                             "two members are named 'a.npy'", dir / "twins.npz");
  CHECK_FALSE(std::filesystem::exists(dir / "twins.npz"));
}

TEST_CASE("a write that fails part-way removes the partial file", "[unit]") {
  TempDir dir;
  const auto big = pattern_tensor("big", DType::kFloat64, {4096});
  const std::vector<NamedTensor> tensors = {big};
  const FileSizeLimit limit(10000);
  parity::test::expect_error([&] { parity::importers::write_npy(dir / "big.npy", big); },
                             "cannot write", dir / "big.npy");
  CHECK_FALSE(std::filesystem::exists(dir / "big.npy"));
  parity::test::expect_error([&] { parity::importers::write_npz(dir / "big.npz", tensors); },
                             "cannot write", dir / "big.npz");
  CHECK_FALSE(std::filesystem::exists(dir / "big.npz"));
}
