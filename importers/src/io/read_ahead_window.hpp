// ReadAheadWindow: reads a file through a window of a few KiB, so that a
// scan made of many small reads (protobuf keys, lengths and names between
// large payloads it skips) costs few system calls and never holds more than
// the window. Not thread-safe: one scan owns it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

namespace parity::importers {

class ReadAheadWindow {
 public:
  // `fd` stays owned by the caller and open while the window is used.
  ReadAheadWindow(int fd, const std::filesystem::path& path, std::uint64_t file_size);

  std::uint64_t file_size() const { return file_size_; }
  const std::filesystem::path& path() const { return path_; }
  // The byte at `offset` (< file_size()).
  std::byte at(std::uint64_t offset);
  // Fills `out` from `offset`; the range must lie within the file.
  void read(std::uint64_t offset, std::span<std::byte> out);

 private:
  void fill(std::uint64_t offset);

  int fd_;
  std::filesystem::path path_;
  std::uint64_t file_size_;
  std::vector<std::byte> window_;
  std::uint64_t window_offset_ = 0;
  std::size_t window_size_ = 0;  // valid bytes in window_
};

}  // namespace parity::importers
