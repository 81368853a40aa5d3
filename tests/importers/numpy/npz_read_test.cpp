// .npz archives NumPy wrote (np.savez, np.savez_compressed, with ZIP64)
// read back exactly, member by member, from several threads at once; damaged
// or foreign members are refused naming the member.
#include <catch2/catch.hpp>
#include <thread>

#include "../safetensors_fixture.hpp"
#include "expect_error.hpp"
#include "numpy_fixture.hpp"
#include "parity/importers/numpy.hpp"
#include "temp_dir.hpp"

using parity::DType;
using parity::importers::NamedTensor;
using parity::importers::open_npz;
using parity::test::pattern_tensor;

namespace {

const std::vector<std::int64_t> kShape = {2, 3, 4};

// The arrays numpy_peer.py saves in its .npz fixtures, in order.
std::vector<NamedTensor> expected_arrays() {
  std::vector<NamedTensor> arrays;
  for (const DType dtype : parity::test::numpy_dtypes())
    arrays.push_back(pattern_tensor(std::string(parity::dtype_name(dtype)), dtype, kShape));
  arrays.push_back(pattern_tensor("scalar", DType::kFloat64, {}));
  arrays.push_back(pattern_tensor("empty", DType::kInt8, {0, 4}));
  arrays.push_back(pattern_tensor("fortran", DType::kFloat32, {3, 5}));
  arrays.push_back(pattern_tensor("big", DType::kInt16, {7}));
  return arrays;
}

void expect_archive(const std::string& file) {
  INFO(file);
  const auto source = open_npz(parity::test::numpy_fixtures() / file);
  CHECK(source->format() == "npz");
  const auto arrays = expected_arrays();
  REQUIRE(source->entries().size() == arrays.size());
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    INFO(arrays[i].name);
    CHECK(source->entries()[i].name == arrays[i].name);
    const NamedTensor tensor = source->read(arrays[i].name);
    CHECK(tensor.dtype == arrays[i].dtype);
    CHECK(tensor.shape == arrays[i].shape);
    CHECK(tensor.data == arrays[i].data);
  }
}

// A copy of fixture `file` in `dir` with `patch` applied to its bytes.
std::filesystem::path patched_copy(const TempDir& dir, const std::string& file,
                                   const std::function<void(std::string&)>& patch) {
  std::string bytes = parity::test::read_bytes(parity::test::numpy_fixtures() / file);
  patch(bytes);
  const auto path = dir / file;
  parity::test::write_bytes(path, bytes);
  return path;
}

}  // namespace

TEST_CASE("np.savez and np.savez_compressed archives read back exactly", "[e2e]") {
  expect_archive("savez.npz");
  expect_archive("savez_compressed.npz");
}

TEST_CASE("ZIP64 archives written by np.savez read back exactly", "[e2e]") {
  expect_archive("zip64.npz");
  expect_archive("zip64_compressed.npz");
}

TEST_CASE("positional arrays are named arr_0, arr_1", "[e2e]") {
  const auto source = open_npz(parity::test::numpy_fixtures() / "positional.npz");
  REQUIRE(source->entries().size() == 2);
  CHECK(source->read("arr_0").data == pattern_tensor("arr_0", DType::kInt32, {4}).data);
  CHECK(source->read("arr_1").data == pattern_tensor("arr_1", DType::kUInt8, {2}).data);
  parity::test::expect_error([&] { source->read("arr_2"); }, "no tensor named 'arr_2'",
                             source->path());
}

TEST_CASE("several threads read one open archive at once", "[unit]") {
  const auto source = open_npz(parity::test::numpy_fixtures() / "savez_compressed.npz");
  const auto arrays = expected_arrays();
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (std::size_t t = 0; t < mismatches.size(); ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round)
        for (const NamedTensor& array : arrays)
          if (source->read(array.name).data != array.data) ++mismatches[t];
    });
  for (std::thread& thread : threads) thread.join();
  CHECK(mismatches == std::vector<int>(4, 0));
}

TEST_CASE("a damaged member's CRC-32 mismatch is refused on read, naming it", "[unit]") {
  TempDir dir;
  // savez stores members: flip the last data byte of the first (float64) array.
  const auto path = patched_copy(dir, "savez.npz", [](std::string& bytes) {
    const auto layout = parity::test::zip_layout(bytes);
    const std::size_t next = layout.local_headers.at(1);
    bytes[next - 1] = static_cast<char>(bytes[next - 1] ^ 0x40);
  });
  const auto source = open_npz(path);
  parity::test::expect_error([&] { source->read("float64"); }, "CRC-32 mismatch", path,
                             "member 'float64.npy'");
  CHECK(source->read("float32").data == expected_arrays()[1].data);
}

TEST_CASE("a member whose size disagrees with its .npy header is refused", "[unit]") {
  TempDir dir;
  // The header of 'float64.npy' says (2, 3, 4) float64; make it (2, 3, 5).
  const auto path = patched_copy(dir, "savez.npz", [](std::string& bytes) {
    const std::size_t at = bytes.find("'shape': (2, 3, 4)");
    REQUIRE(at != std::string::npos);
    bytes[at + 16] = '5';
  });
  parity::test::expect_error([&] { open_npz(path); },
                             "float64 [2, 3, 5] needs 240 bytes of data, but 192 follow", path,
                             "member 'float64.npy'");
}

TEST_CASE("a member that is not a .npy array is refused, naming it", "[unit]") {
  parity::test::expect_error([&] { open_npz(parity::test::numpy_fixtures() / "plain.zip"); },
                             "the member is not a .npy array",
                             parity::test::numpy_fixtures() / "plain.zip", "member 'stored.bin'");
}

TEST_CASE("reading the headers of a compressed archive inflates only their start", "[unit]") {
  TempDir dir;
  // Damage the end of the one member's deflate stream: opening still works
  // (it inflates only the header), reading the array finds the damage.
  const auto path = patched_copy(dir, "large_compressed.npz", [](std::string& bytes) {
    const auto layout = parity::test::zip_layout(bytes);
    const std::size_t data_end = layout.central_headers.at(0);
    for (std::size_t i = data_end - 200; i < data_end - 100; ++i) bytes[i] = '\xff';
  });
  const auto source = open_npz(path);
  CHECK(source->entries().at(0).shape == std::vector<std::int64_t>{1024, 1024});
  parity::test::expect_error([&] { source->read("zeros"); }, "inflates to", path,
                             "member 'zeros.npy'");
}
