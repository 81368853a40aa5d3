// Helpers shared by numpy_importer_tests: the fixtures numpy_peer.py writes
// (once per test process), and raw .npy and zip byte surgery for damaged
// files. The check that an error names the file and the member is
// parity::test::expect_error (expect_error.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "parity/core/dtype.hpp"
#include "parity/importers/named_tensor.hpp"

namespace parity::test {

// The folder of numpy_peer.py's fixtures, written on first use.
const std::filesystem::path& numpy_fixtures();
// Runs numpy_peer.py COMMAND FOLDER; returns its stdout, failing the test on
// a non-zero exit.
std::string run_numpy_peer(const std::string& command, const std::filesystem::path& folder);

// Every dtype NumPy and Parity share, by Parity's name (the fixtures' names).
const std::vector<DType>& numpy_dtypes();

// A .npy file: magic, version, length field, `dict` padded to 64 bytes, data.
std::string npy_bytes(std::string_view dict, std::string_view data, int major_version = 1);

// Little-endian fields in a byte string, for patching headers.
std::uint64_t get_le(const std::string& bytes, std::size_t offset, int size);
void set_le(std::string& bytes, std::size_t offset, int size, std::uint64_t value);

// Offsets of the records of a zip file without an archive comment.
struct ZipLayout {
  std::size_t end_record = 0;
  std::vector<std::size_t> central_headers;
  std::vector<std::size_t> local_headers;
};
ZipLayout zip_layout(const std::string& bytes);

}  // namespace parity::test
