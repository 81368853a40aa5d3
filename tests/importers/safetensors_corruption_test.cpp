// Every kind of damaged or malformed safetensors file is refused with a
// parity::Error naming the file and the tensor or offset at fault, and no
// input - truncated at any length, any header byte flipped - crashes the reader.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <random>

#include "expect_error.hpp"
#include "parity/core/error.hpp"
#include "parity/importers/safetensors.hpp"
#include "safetensors_fixture.hpp"
#include "temp_dir.hpp"

using parity::DType;
using parity::Error;
using parity::importers::NamedTensor;
using parity::importers::SafetensorsFile;
using parity::test::write_raw_safetensors;

namespace {

// Opens and reads every tensor of `path`, expecting a parity::Error whose
// message holds `what` and whose location names the file and holds `where`.
void expect_refused(const std::filesystem::path& path, const std::string& what,
                    const std::string& where) {
  parity::test::expect_error([&] { SafetensorsFile::open(path).read_all(); }, what, path, where);
}

std::string f32_bytes(int count) { return std::string(static_cast<std::size_t>(count) * 4, '\1'); }

}  // namespace

TEST_CASE("a file too short for the header length is refused", "[unit]") {
  TempDir dir;
  parity::test::write_bytes(dir / "short.safetensors", "abc");
  expect_refused(dir / "short.safetensors", "too short to be safetensors: 3 bytes", "");
  parity::test::write_bytes(dir / "zero.safetensors", "");
  expect_refused(dir / "zero.safetensors", "0 bytes", "");
}

TEST_CASE("a header length beyond the file or the limit is refused", "[unit]") {
  TempDir dir;
  write_raw_safetensors(dir / "beyond.safetensors", "{}", "", 4096);
  expect_refused(dir / "beyond.safetensors", "header length 4096 runs past the end of the file",
                 "offset 0");
  write_raw_safetensors(dir / "huge.safetensors", "{}", "", std::uint64_t{1} << 62);
  expect_refused(dir / "huge.safetensors", "beyond the limit", "offset 0");
}

TEST_CASE("a header that is not a JSON object is refused", "[unit]") {
  TempDir dir;
  write_raw_safetensors(dir / "text.safetensors", "hello world");
  expect_refused(dir / "text.safetensors", "not valid JSON", "offset 8");
  write_raw_safetensors(dir / "cut.safetensors", R"({"a": {"dtype": "F32")");
  expect_refused(dir / "cut.safetensors", "not valid JSON", "offset");
  write_raw_safetensors(dir / "array.safetensors", "[1, 2]");
  expect_refused(dir / "array.safetensors", "header is a JSON array, not an object", "offset 8");
  write_raw_safetensors(dir / "empty.safetensors", "");
  expect_refused(dir / "empty.safetensors", "not valid JSON", "");
  write_raw_safetensors(dir / "latin1.safetensors", "{\"caf\xe9\": 1}");
  expect_refused(dir / "latin1.safetensors", "not valid JSON", "");
  write_raw_safetensors(dir / "deep.safetensors",
                        R"({"a": {"dtype": "F32", "shape": [[[1]]], "data_offsets": [0, 4]}})");
  expect_refused(dir / "deep.safetensors", "nests JSON deeper", "");
}

TEST_CASE("an unknown dtype is refused naming the tensor", "[unit]") {
  TempDir dir;
  write_raw_safetensors(dir / "u32.safetensors",
                        R"({"w": {"dtype": "U32", "shape": [2], "data_offsets": [0, 8]}})",
                        f32_bytes(2));
  expect_refused(dir / "u32.safetensors", "unsupported dtype 'U32'", "tensor 'w'");
  write_raw_safetensors(dir / "lower.safetensors",
                        R"({"w": {"dtype": "f32", "shape": [2], "data_offsets": [0, 8]}})",
                        f32_bytes(2));
  expect_refused(dir / "lower.safetensors", "dtype 'f32'", "tensor 'w'");
  write_raw_safetensors(dir / "number.safetensors",
                        R"({"w": {"dtype": 7, "shape": [2], "data_offsets": [0, 8]}})",
                        f32_bytes(2));
  expect_refused(dir / "number.safetensors", "dtype must be a string", "tensor 'w'");
}

TEST_CASE("a size that disagrees with shape and dtype is refused", "[unit]") {
  TempDir dir;
  write_raw_safetensors(dir / "size.safetensors",
                        R"({"conv1.weight": {"dtype": "F32", "shape": [2, 3], )"
                        R"("data_offsets": [0, 20]}})",
                        f32_bytes(5));
  expect_refused(dir / "size.safetensors",
                 "F32 [2, 3] needs 24 bytes, but data_offsets [0, 20] span 20",
                 "tensor 'conv1.weight'");
  write_raw_safetensors(dir / "overflow.safetensors",
                        R"({"w": {"dtype": "F64", "shape": [4611686018427387904, 4], )"
                        R"("data_offsets": [0, 8]}})",
                        f32_bytes(2));
  expect_refused(dir / "overflow.safetensors", "more bytes than int64", "tensor 'w'");
  write_raw_safetensors(dir / "negative.safetensors",
                        R"({"w": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}})",
                        f32_bytes(2));
  expect_refused(dir / "negative.safetensors", "non-negative integer, not -2", "tensor 'w'");
  write_raw_safetensors(dir / "float.safetensors",
                        R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8.0]}})",
                        f32_bytes(2));
  expect_refused(dir / "float.safetensors", "data_offsets end must be a non-negative integer",
                 "tensor 'w'");
}

TEST_CASE("malformed tensor entries are refused naming the tensor", "[unit]") {
  TempDir dir;
  write_raw_safetensors(dir / "missing.safetensors",
                        R"({"w": {"dtype": "F32", "data_offsets": [0, 8]}})", f32_bytes(2));
  expect_refused(dir / "missing.safetensors", "has no 'shape'", "tensor 'w'");
  write_raw_safetensors(dir / "extra.safetensors",
                        R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8], )"
                        R"("strides": [1]}})",
                        f32_bytes(2));
  expect_refused(dir / "extra.safetensors", "unknown key 'strides'", "tensor 'w'");
  write_raw_safetensors(dir / "three.safetensors",
                        R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4, 8]}})",
                        f32_bytes(2));
  expect_refused(dir / "three.safetensors", "data_offsets must be an array [begin, end]",
                 "tensor 'w'");
  write_raw_safetensors(dir / "notobject.safetensors", R"({"w": [1, 2]})");
  expect_refused(dir / "notobject.safetensors", "must be an object", "tensor 'w'");
  write_raw_safetensors(dir / "meta.safetensors", R"({"__metadata__": {"epoch": 3}})");
  expect_refused(dir / "meta.safetensors", "__metadata__ value of 'epoch' must be a string", "");
  write_raw_safetensors(dir / "metaarray.safetensors", R"({"__metadata__": ["a"]})");
  expect_refused(dir / "metaarray.safetensors", "__metadata__ must be an object", "");
}

TEST_CASE("offsets out of range, reversed or overlapping are refused", "[unit]") {
  TempDir dir;
  write_raw_safetensors(dir / "range.safetensors",
                        R"({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})",
                        f32_bytes(2));
  expect_refused(dir / "range.safetensors",
                 "data_offsets [0, 16] run past the end of the data, which holds 8 bytes",
                 "tensor 'w'");
  write_raw_safetensors(dir / "reversed.safetensors",
                        R"({"w": {"dtype": "F32", "shape": [0], "data_offsets": [8, 4]}})",
                        f32_bytes(2));
  expect_refused(dir / "reversed.safetensors", "end before they begin", "tensor 'w'");
  write_raw_safetensors(dir / "overlap.safetensors",
                        R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, )"
                        R"("b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})",
                        f32_bytes(3));
  expect_refused(dir / "overlap.safetensors", "tensors 'a' [0, 8] and 'b' [4, 12] overlap",
                 "tensor 'b'");
  write_raw_safetensors(dir / "alias.safetensors",
                        R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, )"
                        R"("b": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})",
                        f32_bytes(2));
  expect_refused(dir / "alias.safetensors", "overlap", "tensor");
}

TEST_CASE("data not fully covered by tensors is refused", "[unit]") {
  TempDir dir;
  write_raw_safetensors(dir / "hole.safetensors",
                        R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, )"
                        R"("b": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}})",
                        f32_bytes(3));
  const std::string hole_header =
      R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, )"
      R"("b": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}})";
  expect_refused(dir / "hole.safetensors", "data bytes [4, 8] belong to no tensor",
                 "offset " + std::to_string(8 + hole_header.size() + 4));
  write_raw_safetensors(dir / "trailing.safetensors",
                        R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})",
                        f32_bytes(2));
  expect_refused(dir / "trailing.safetensors",
                 "data bytes [4, 8] at the end of the file belong to no tensor", "offset");
  write_raw_safetensors(dir / "nothing.safetensors", "{}", "junk");
  expect_refused(dir / "nothing.safetensors", "data bytes [0, 4] at the end", "offset 10");
}

TEST_CASE("duplicate names are refused", "[unit]") {
  TempDir dir;
  write_raw_safetensors(dir / "dup.safetensors",
                        R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, )"
                        R"("w": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})",
                        f32_bytes(2));
  expect_refused(dir / "dup.safetensors", "duplicate tensor name 'w'", "tensor 'w'");
  write_raw_safetensors(dir / "dupkey.safetensors",
                        R"({"w": {"dtype": "F32", "dtype": "F16", "shape": [1], )"
                        R"("data_offsets": [0, 4]}})",
                        f32_bytes(1));
  expect_refused(dir / "dupkey.safetensors", "duplicate key 'dtype'", "");
  write_raw_safetensors(dir / "dupmeta.safetensors",
                        R"({"__metadata__": {"a": "1"}, "__metadata__": {"a": "2"}})");
  expect_refused(dir / "dupmeta.safetensors", "duplicate", "");
}

TEST_CASE("a truncated file is refused naming the tensor that runs past its end", "[unit]") {
  TempDir dir;
  const std::vector<NamedTensor> tensors{
      parity::test::pattern_tensor("conv1.weight", DType::kFloat32, {8, 3, 3, 3}),
      parity::test::pattern_tensor("fc.bias", DType::kFloat32, {10})};
  parity::importers::write_safetensors(dir / "full.safetensors", tensors);
  const auto bytes = parity::test::read_bytes(dir / "full.safetensors");
  parity::test::write_bytes(dir / "cut.safetensors", bytes.substr(0, bytes.size() - 10));
  expect_refused(dir / "cut.safetensors", "run past the end of the data", "tensor");
  try {
    SafetensorsFile::open(dir / "cut.safetensors");
  } catch (const Error& e) {
    CHECK_THAT(e.hint(), Catch::Contains("truncated"));
  }
}

TEST_CASE("a file that shrinks after it was opened is refused when read", "[unit]") {
  TempDir dir;
  const std::vector<NamedTensor> tensors{parity::test::pattern_tensor("a", DType::kFloat32, {100}),
                                         parity::test::pattern_tensor("b", DType::kFloat32, {100})};
  parity::importers::write_safetensors(dir / "m.safetensors", tensors);
  const auto file = SafetensorsFile::open(dir / "m.safetensors");
  REQUIRE(::truncate((dir / "m.safetensors").c_str(),
                     static_cast<off_t>(file.data_offset() + 10)) == 0);
  CHECK_THROWS_WITH(file.read("b"), Catch::Contains("shrank after it was opened"));
}

TEST_CASE("BOOL bytes other than 0 and 1 are refused naming the element", "[unit]") {
  TempDir dir;
  write_raw_safetensors(dir / "bool.safetensors",
                        R"({"mask": {"dtype": "BOOL", "shape": [3], "data_offsets": [0, 3]}})",
                        std::string("\1\0\2", 3));
  const auto file = SafetensorsFile::open(dir / "bool.safetensors");
  try {
    file.read("mask");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK_THAT(e.what_failed(), Catch::Contains("BOOL element 2 is 2"));
    CHECK_THAT(e.where(), Catch::Contains("tensor 'mask'") && Catch::Contains("offset"));
  }
}

TEST_CASE("missing files, folders and unknown names are refused clearly", "[unit]") {
  TempDir dir;
  CHECK_THROWS_WITH(
      SafetensorsFile::open(dir / "none.safetensors"),
      Catch::Contains("cannot open safetensors file") && Catch::Contains("none.safetensors"));
  CHECK_THROWS_WITH(SafetensorsFile::open(dir.path()), Catch::Contains("not a regular file"));
  parity::importers::write_safetensors(
      dir / "m.safetensors",
      std::vector{parity::test::pattern_tensor("fc.bias", DType::kFloat32, {2})});
  const auto file = SafetensorsFile::open(dir / "m.safetensors");
  try {
    file.read("fc.weight");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK_THAT(e.what_failed(), Catch::Contains("no tensor named 'fc.weight'"));
    CHECK_THAT(e.hint(), Catch::Contains("fc.bias"));
  }
}

TEST_CASE("no truncation and no header byte flip crashes the reader", "[unit]") {
  TempDir dir;
  std::vector<NamedTensor> tensors;
  for (const DType dtype : {DType::kFloat64, DType::kFloat32, DType::kBFloat16, DType::kInt64,
                            DType::kInt8, DType::kBool})
    tensors.push_back(
        parity::test::pattern_tensor(std::string(parity::dtype_name(dtype)), dtype, {3, 2}));
  tensors.push_back(parity::test::pattern_tensor("scalar", DType::kInt64, {}));
  tensors.push_back(parity::test::pattern_tensor("empty", DType::kFloat32, {0}));
  parity::importers::write_safetensors(dir / "valid.safetensors", tensors, {{"format", "pt"}});
  const std::string valid = parity::test::read_bytes(dir / "valid.safetensors");
  const auto path = dir / "damaged.safetensors";

  // Returns true when the damaged file reads whole, false when it is refused;
  // anything else than parity::Error escaping fails the test.
  const auto reads = [&](const std::string& bytes) {
    parity::test::write_bytes(path, bytes);
    try {
      const auto file = SafetensorsFile::open(path);
      file.read_all();
      return true;
    } catch (const Error& e) {
      CHECK_THAT(e.where(), Catch::Contains(path.string()));
      return false;
    }
  };

  int refused = 0;
  for (std::size_t length = 0; length < valid.size(); ++length)
    if (!reads(valid.substr(0, length))) ++refused;
  CHECK(refused == static_cast<int>(valid.size()));  // every cut is noticed
  CHECK(reads(valid));

  std::uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i)
    header_size =
        (header_size << 8) | static_cast<unsigned char>(valid[static_cast<std::size_t>(i)]);
  int flips = 0;
  for (std::size_t position = 0; position < 8 + header_size; ++position)
    for (const unsigned char mask : {0x01, 0x02, 0x10, 0x20, 0x80, 0xff}) {
      std::string damaged = valid;
      damaged[position] = static_cast<char>(static_cast<unsigned char>(damaged[position]) ^ mask);
      reads(damaged);
      ++flips;
    }
  std::mt19937 rng(11);
  for (int round = 0; round < 2000; ++round) {
    std::string damaged = valid;
    for (int k = 0; k < 3; ++k) damaged[rng() % damaged.size()] = static_cast<char>(rng() % 256);
    reads(damaged);
  }
  CHECK(flips == static_cast<int>(8 + header_size) * 6);
}
