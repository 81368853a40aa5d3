#include "numpy_fixture.hpp"

#include <catch2/catch.hpp>

#include "process.hpp"
#include "temp_dir.hpp"

namespace parity::test {

std::string run_numpy_peer(const std::string& command, const std::filesystem::path& folder) {
  const ProcessResult peer =
      run_process({PARITY_PYTHON, PARITY_NUMPY_PEER, command, folder.string()});
  INFO(peer.out << peer.err);
  REQUIRE(peer.exit_code == 0);
  return peer.out;
}

const std::filesystem::path& numpy_fixtures() {
  static TempDir dir;
  static const bool written = [] {
    run_numpy_peer("fixtures", dir.path());
    return true;
  }();
  (void)written;
  return dir.path();
}

const std::vector<DType>& numpy_dtypes() {
  static const std::vector<DType> dtypes = {DType::kFloat64, DType::kFloat32, DType::kFloat16,
                                            DType::kInt64,   DType::kInt32,   DType::kInt16,
                                            DType::kInt8,    DType::kUInt8,   DType::kBool};
  return dtypes;
}

std::string npy_bytes(std::string_view dict, std::string_view data, int major_version) {
  const std::size_t preamble = major_version == 1 ? 10 : 12;
  std::string header(dict);
  header.append(63 - (preamble + header.size()) % 64, ' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back(static_cast<char>(major_version));
  out.push_back('\0');
  out.resize(preamble);
  set_le(out, 8, major_version == 1 ? 2 : 4, header.size());
  return out + header + std::string(data);
}

std::uint64_t get_le(const std::string& bytes, std::size_t offset, int size) {
  std::uint64_t value = 0;
  for (int i = size - 1; i >= 0; --i)
    value =
        (value << 8) | static_cast<unsigned char>(bytes.at(offset + static_cast<std::size_t>(i)));
  return value;
}

void set_le(std::string& bytes, std::size_t offset, int size, std::uint64_t value) {
  for (int i = 0; i < size; ++i)
    bytes.at(offset + static_cast<std::size_t>(i)) = static_cast<char>((value >> (8 * i)) & 0xff);
}

ZipLayout zip_layout(const std::string& bytes) {
  ZipLayout layout;
  layout.end_record = bytes.size() - 22;
  REQUIRE(get_le(bytes, layout.end_record, 4) == 0x06054b50);
  const auto count = get_le(bytes, layout.end_record + 10, 2);
  std::size_t at = get_le(bytes, layout.end_record + 16, 4);
  for (std::uint64_t i = 0; i < count; ++i) {
    REQUIRE(get_le(bytes, at, 4) == 0x02014b50);
    layout.central_headers.push_back(at);
    layout.local_headers.push_back(get_le(bytes, at + 42, 4));
    at += 46 + get_le(bytes, at + 28, 2) + get_le(bytes, at + 30, 2) + get_le(bytes, at + 32, 2);
  }
  return layout;
}

}  // namespace parity::test
