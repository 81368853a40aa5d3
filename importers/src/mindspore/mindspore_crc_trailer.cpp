#include "mindspore/mindspore_crc_trailer.hpp"

#include <zlib.h>

#include <algorithm>
#include <vector>

#include "io/posix_file.hpp"
#include "mindspore/mindspore_checkpoint_format.hpp"

namespace parity::importers::mindspore {

std::uint32_t crc32_update(std::uint32_t crc, std::span<const std::byte> bytes) {
  // zlib returns its initial value for a null buffer, whatever `crc` is.
  if (bytes.empty()) return crc;
  return static_cast<std::uint32_t>(
      ::crc32_z(crc, reinterpret_cast<const Bytef*>(bytes.data()), bytes.size()));
}

std::uint32_t crc32_of_file_prefix(int fd, const std::filesystem::path& path, std::uint64_t size) {
  constexpr std::uint64_t kChunkBytes = 1 << 20;
  std::vector<std::byte> chunk(static_cast<std::size_t>(std::min(kChunkBytes, size)));
  std::uint32_t crc = 0;
  for (std::uint64_t offset = 0; offset < size; offset += chunk.size()) {
    const auto part = std::span(chunk).first(
        static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), size - offset)));
    read_exactly(fd, path, offset, part, "the bytes covered by the CRC");
    crc = crc32_update(crc, part);
  }
  return crc;
}

std::string crc_trailer(std::uint32_t crc) {
  std::string trailer(kCrcMarker);
  for (std::size_t i = kCrcValueBytes; i-- > 0;)
    trailer.push_back(static_cast<char>(i < 4 ? (crc >> (8 * i)) & 0xffu : 0));
  return trailer;
}

std::uint64_t crc_trailer_value(std::span<const std::byte> value_bytes) {
  std::uint64_t value = 0;
  for (const std::byte byte : value_bytes) {
    // Ten bytes can hold 80 bits; anything past 64 saturates, which no CRC-32 matches.
    if (value >> 56 != 0) return UINT64_MAX;
    value = (value << 8) | std::to_integer<std::uint64_t>(byte);
  }
  return value;
}

}  // namespace parity::importers::mindspore
