// ZipWriter: a minimal zip writer for archives of stored (uncompressed)
// members, such as .npz files. Every member gets its CRC-32 and exact sizes in
// its local header (no data descriptors); ZIP64 records are written where a
// size, an offset or the member count needs them, or everywhere with
// `force_zip64`. Timestamps are fixed (1980-01-01 00:00), so equal input
// gives equal files. A writer destroyed before finish() removes its file,
// so a failure never leaves a partial archive behind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/posix_file.hpp"

namespace parity::importers {

class ZipWriter {
 public:
  // Creates (or truncates) the archive at `path`.
  explicit ZipWriter(std::filesystem::path path, bool force_zip64 = false);
  ~ZipWriter();
  ZipWriter(const ZipWriter&) = delete;
  ZipWriter& operator=(const ZipWriter&) = delete;

  // Appends a stored member whose bytes are `pieces` one after another. With
  // `alignment`, its data starts at a multiple of that many bytes in the
  // file, padded by an extra field of the local header as PyTorch pads its
  // records (id "FB", filled with 'Z'). Throws parity::Error for a name used
  // before or longer than 65535 bytes.
  void add_stored(std::string_view name, std::span<const std::span<const std::byte>> pieces,
                  std::uint64_t alignment = 1);
  // Writes the central directory and end records, and closes the file.
  void finish();

 private:
  struct Entry {
    std::string name;
    std::uint32_t crc32 = 0;
    std::uint64_t size = 0;
    std::uint64_t local_header_offset = 0;
  };

  void write(std::string_view bytes);
  void write(std::span<const std::byte> bytes);
  std::string central_header(const Entry& entry) const;
  std::string end_records(std::uint64_t directory_offset, std::uint64_t directory_size) const;

  std::filesystem::path path_;
  bool force_zip64_;
  FileDescriptor fd_;
  std::uint64_t offset_ = 0;
  std::vector<Entry> entries_;
  std::set<std::string, std::less<>> names_;
  bool finished_ = false;
};

}  // namespace parity::importers
