// Malformed or unsupported .npy files are refused with a parity::Error that
// names the file (and the dtype or key at fault), never read wrongly.
#include <catch2/catch.hpp>

#include "../safetensors_fixture.hpp"
#include "expect_error.hpp"
#include "numpy_fixture.hpp"
#include "parity/importers/numpy.hpp"
#include "temp_dir.hpp"

using parity::importers::open_npy;
using parity::test::expect_error;
using parity::test::npy_bytes;

namespace {

// Writes `bytes` as x.npy and expects opening it and reading its tensor to
// fail with `what`.
void expect_refused(const std::string& bytes, const std::string& what) {
  TempDir dir;
  const auto path = dir / "x.npy";
  parity::test::write_bytes(path, bytes);
  expect_error([&] { open_npy(path)->read("x"); }, what, path);
}

std::string dict_with(std::string_view descr, std::string_view fortran, std::string_view shape) {
  return "{'descr': " + std::string(descr) + ", 'fortran_order': " + std::string(fortran) +
         ", 'shape': " + std::string(shape) + ", }";
}

const std::string kFourBytes(4, '\0');

}  // namespace

TEST_CASE("a file without the NumPy magic or of another version is refused", "[unit]") {
  expect_refused("", "does not start with \\x93NUMPY");
  expect_refused("PK\x03\x04 not numpy at all", "does not start with \\x93NUMPY");
  expect_refused("\x93NUMPY", "header is truncated");
  std::string version4 = npy_bytes(dict_with("'<f4'", "False", "(1,)"), kFourBytes, 2);
  version4[6] = 4;
  expect_refused(version4, "npy format version 4.0 is not supported");
  std::string minor = npy_bytes(dict_with("'<f4'", "False", "(1,)"), kFourBytes);
  minor[7] = 1;
  expect_refused(minor, "npy format version 1.1 is not supported");
}

TEST_CASE("a header length past the end of the file or the limit is refused", "[unit]") {
  std::string bytes = npy_bytes(dict_with("'<f4'", "False", "(1,)"), kFourBytes);
  parity::test::set_le(bytes, 8, 2, 60000);
  expect_refused(bytes, "the .npy header is 60010 bytes long, but the array is stored in");
  std::string huge = npy_bytes(dict_with("'<f4'", "False", "(1,)"), kFourBytes, 2);
  parity::test::set_le(huge, 8, 4, 0xfffffff0);
  expect_refused(huge, "beyond the limit");
}

TEST_CASE("a header that is not the three-key dict is refused", "[unit]") {
  expect_refused(npy_bytes("['descr', '<f4']", kFourBytes), "'the header' must be a dict");
  expect_refused(npy_bytes("{'descr': '<f4', 'fortran_order': False}", kFourBytes),
                 "has no 'shape'");
  expect_refused(npy_bytes("{'DESCR': '<f4', 'fortran_order': False, 'shape': (1,)}", kFourBytes),
                 "unexpected key 'DESCR'");
  expect_refused(
      npy_bytes("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}",
                kFourBytes),
      "key 'descr' appears twice");
  expect_refused(
      npy_bytes(dict_with("'<f4'", "False", "(1,)").replace(0, 1, "{'extra': 1, "), kFourBytes),
      "unexpected key 'extra'");
}

TEST_CASE("a header that is not a plain Python literal is refused", "[unit]") {
  expect_refused(npy_bytes(dict_with("eval('<f4')", "False", "(1,)"), kFourBytes),
                 "unexpected name 'eval'");
  expect_refused(npy_bytes(dict_with("'<f4'", "False", "(1,)") + " x", kFourBytes),
                 "unexpected text after the literal");
  expect_refused(npy_bytes("{'descr': '<f4", kFourBytes), "unterminated string");
  expect_refused(npy_bytes(dict_with("'<f4'", "False", "(1,,)"), kFourBytes),
                 "unexpected character");
  expect_refused(npy_bytes(dict_with("'<f4'", "False", "(99999999999999999999,)"), kFourBytes),
                 "integer beyond int64");
  expect_refused(npy_bytes(dict_with("'<f4'", "False", "(01,)"), kFourBytes), "leading zero");
  expect_refused(npy_bytes(dict_with("'<f4'", "False", "(1.0,)"), kFourBytes),
                 "not a plain integer");
  expect_refused(npy_bytes(dict_with("'<f4'", "False", std::string(40, '(') + std::string(40, ')')),
                           kFourBytes),
                 "nesting deeper than 32 levels");
}

TEST_CASE("unsupported dtypes are refused naming the dtype", "[unit]") {
  expect_refused(npy_bytes(dict_with("'<u4'", "False", "(1,)"), kFourBytes),
                 "dtype '<u4' (unsigned integers) is not supported");
  expect_refused(npy_bytes(dict_with("'|O'", "False", "(1,)"), std::string(8, '\0')),
                 "dtype '|O' (Python objects) is not supported");
  expect_refused(npy_bytes(dict_with("'<U3'", "False", "(1,)"), std::string(12, '\0')),
                 "dtype '<U3' (unicode strings) is not supported");
  expect_refused(npy_bytes(dict_with("'<c8'", "False", "(1,)"), std::string(8, '\0')),
                 "dtype '<c8' (complex numbers) is not supported");
  expect_refused(npy_bytes(dict_with("'<f16'", "False", "(1,)"), std::string(16, '\0')),
                 "dtype '<f16' (floating point of that size) is not supported");
  expect_refused(npy_bytes(dict_with("[('a', '<f4'), ('b', '<i4', (2,))]", "False", "(1,)"),
                           std::string(12, '\0')),
                 "structured dtype [('a', '<f4'), ('b', '<i4', (2,))] is not supported");
  expect_refused(npy_bytes(dict_with("'|f4'", "False", "(1,)"), kFourBytes),
                 "dtype '|f4' has no valid byte order");
  expect_refused(npy_bytes(dict_with("3", "False", "(1,)"), kFourBytes), "'descr' must be");
}

TEST_CASE("invalid fortran_order and shape values are refused", "[unit]") {
  expect_refused(npy_bytes(dict_with("'<f4'", "0", "(1,)"), kFourBytes),
                 "'fortran_order' must be True or False, not 0");
  expect_refused(npy_bytes(dict_with("'<f4'", "False", "(1)"), kFourBytes),
                 "'shape' must be a tuple of integers, not 1");
  expect_refused(npy_bytes(dict_with("'<f4'", "False", "[1]"), kFourBytes),
                 "'shape' must be a tuple of integers, not [1]");
  expect_refused(npy_bytes(dict_with("'<f4'", "False", "(-1,)"), kFourBytes),
                 "shape (-1,) holds -1, not a non-negative integer");
  expect_refused(npy_bytes(dict_with("'<f8'", "False", "(4294967296, 4294967296)"), kFourBytes),
                 "holds more bytes than int64 counts");
}

TEST_CASE("data shorter or longer than the header says is refused", "[unit]") {
  expect_refused(npy_bytes(dict_with("'<f4'", "False", "(2, 3)"), std::string(20, '\0')),
                 "float32 [2, 3] needs 24 bytes of data, but 20 follow the header");
  expect_refused(npy_bytes(dict_with("'<f4'", "False", "(2,)"), std::string(12, '\0')),
                 "needs 8 bytes of data, but 12 follow the header");
}

TEST_CASE("bool bytes other than 0 and 1 are refused on read", "[unit]") {
  TempDir dir;
  const auto path = dir / "flags.npy";
  parity::test::write_bytes(
      path, npy_bytes(dict_with("'|b1'", "False", "(3,)"), std::string("\x01\x00\x02", 3)));
  const auto source = open_npy(path);
  expect_error([&] { source->read("flags"); }, "bool element 2 (in file order) is 2, not 0 or 1",
               path, "tensor 'flags'");
}

TEST_CASE("a name other than the file's stem is refused", "[unit]") {
  const auto path = parity::test::numpy_fixtures() / "c_float32.npy";
  expect_error([&] { open_npy(path)->read("weights"); }, "no tensor named 'weights'", path);
}

TEST_CASE("every truncation of a valid .npy file is refused cleanly", "[unit]") {
  const std::string whole =
      parity::test::read_bytes(parity::test::numpy_fixtures() / "fortran_int16.npy");
  TempDir dir;
  const auto path = dir / "cut.npy";
  for (std::size_t size = 0; size < whole.size(); ++size) {
    // A new file each time: rewriting one in place makes ext4 flush it to disk.
    std::filesystem::remove(path);
    parity::test::write_bytes(path, whole.substr(0, size));
    expect_error([&] { open_npy(path)->read("cut"); }, "", path);
  }
}
