#include "io/read_ahead_window.hpp"

#include <algorithm>
#include <cstring>

#include "io/posix_file.hpp"

namespace parity::importers {
namespace {
// Large enough for the keys, dims and names of a few checkpoint records, small
// enough that refilling it for every record costs nothing next to the scan.
constexpr std::size_t kWindowBytes = 16 * 1024;
}  // namespace

ReadAheadWindow::ReadAheadWindow(int fd, const std::filesystem::path& path, std::uint64_t file_size)
    : fd_(fd), path_(path), file_size_(file_size), window_(kWindowBytes) {}

void ReadAheadWindow::fill(std::uint64_t offset) {
  const std::size_t size =
      static_cast<std::size_t>(std::min<std::uint64_t>(kWindowBytes, file_size_ - offset));
  read_exactly(fd_, path_, offset, std::span(window_).first(size), "the records being scanned");
  window_offset_ = offset;
  window_size_ = size;
}

std::byte ReadAheadWindow::at(std::uint64_t offset) {
  if (offset < window_offset_ || offset >= window_offset_ + window_size_) fill(offset);
  return window_[static_cast<std::size_t>(offset - window_offset_)];
}

void ReadAheadWindow::read(std::uint64_t offset, std::span<std::byte> out) {
  if (out.size() > kWindowBytes) {
    read_exactly(fd_, path_, offset, out, "the records being scanned");
    return;
  }
  if (out.empty()) return;
  if (offset < window_offset_ || offset + out.size() > window_offset_ + window_size_) fill(offset);
  std::memcpy(out.data(), window_.data() + (offset - window_offset_), out.size());
}

}  // namespace parity::importers
