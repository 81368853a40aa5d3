// The CRC trailer of save_checkpoint(crc_check=True) (MindSpore 2.3 and
// later): "crc_num" followed by binascii.crc32 (zlib's CRC-32) of every byte
// before the trailer, as a 10-byte big-endian integer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace parity::importers::mindspore {

// zlib's CRC-32 of `bytes`, continuing from `crc` (0 to start).
std::uint32_t crc32_update(std::uint32_t crc, std::span<const std::byte> bytes);
// The CRC-32 of the first `size` bytes of the open file `fd`, read in chunks.
std::uint32_t crc32_of_file_prefix(int fd, const std::filesystem::path& path, std::uint64_t size);

// The 17 bytes of the trailer for `crc`.
std::string crc_trailer(std::uint32_t crc);
// The integer a trailer's 10 value bytes hold (which may exceed 32 bits in a
// damaged file).
std::uint64_t crc_trailer_value(std::span<const std::byte> value_bytes);

}  // namespace parity::importers::mindspore
