#include "checkpoint_bytes.hpp"

#include <zlib.h>

#include "expect_error.hpp"
#include "parity/importers/mindspore_checkpoint.hpp"

namespace parity::test::ckpt {

std::string varint(std::uint64_t value) {
  std::string out;
  do {
    const auto low = static_cast<unsigned char>(value & 0x7f);
    value >>= 7;
    out.push_back(static_cast<char>(value ? low | 0x80 : low));
  } while (value);
  return out;
}

std::string varint_field(std::uint32_t number, std::uint64_t value) {
  return varint(std::uint64_t{number} << 3) + varint(value);
}

std::string bytes_field(std::uint32_t number, std::string_view payload) {
  return varint((std::uint64_t{number} << 3) | 2) + varint(payload.size()) + std::string(payload);
}

std::string tensor(const std::vector<std::int64_t>& dims, std::string_view type,
                   std::string_view content) {
  std::string out;
  for (const std::int64_t dim : dims) out += varint_field(1, static_cast<std::uint64_t>(dim));
  return out + bytes_field(2, type) + bytes_field(3, content);
}

std::string value(std::string_view tag, std::string_view tensor_message) {
  return bytes_field(1, bytes_field(1, tag) + bytes_field(2, tensor_message));
}

std::string crc_trailer(std::string_view body) {
  const auto crc =
      ::crc32(0, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()));
  std::string trailer = "crc_num";
  for (int i = 9; i >= 0; --i)
    trailer.push_back(static_cast<char>(i < 4 ? (crc >> (8 * i)) & 0xff : 0));
  return trailer;
}

std::filesystem::path fixture(const std::string& name) {
  return std::filesystem::path(PARITY_MINDSPORE_FIXTURES) / name;
}

void expect_refused(const std::filesystem::path& path, const std::string& what,
                    const std::string& where) {
  expect_error([&] { read_all(*importers::open_mindspore_checkpoint(path)); }, what, path, where);
}

std::vector<importers::NamedTensor> read_all(const importers::TensorSource& source) {
  std::vector<importers::NamedTensor> tensors;
  for (const importers::TensorEntry& entry : source.entries())
    tensors.push_back(source.read(entry.name));
  return tensors;
}

}  // namespace parity::test::ckpt
