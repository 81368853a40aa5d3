// Plain POSIX file access for the readers and writers: an owned descriptor,
// positioned reads (thread-safe: no shared file offset) and complete writes,
// each failure a parity::Error naming the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>
#include <utility>

namespace parity::importers {

// Closes its descriptor when destroyed.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(FileDescriptor&& other) noexcept;
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor();

  int get() const { return fd_; }
  // Gives up ownership: the caller closes the descriptor.
  int release() { return std::exchange(fd_, -1); }
  // Closes now, throwing (naming `path`) if the close fails, e.g. on a full disk.
  void close_checked(const std::filesystem::path& path);

 private:
  int fd_ = -1;
};

struct OpenedFile {
  FileDescriptor fd;
  std::uint64_t size = 0;
};

// Opens a regular file for reading; `kind` ("zip file", "npy file") names it
// in errors.
OpenedFile open_for_reading(const std::filesystem::path& path, std::string_view kind);

// Fills `out` from `offset` with positioned reads. `what` ("the central
// directory", "member 'x'") names the bytes in errors; reading past the end
// of the file is an error saying the file shrank or is truncated.
void read_exactly(int fd, const std::filesystem::path& path, std::uint64_t offset,
                  std::span<std::byte> out, std::string_view what);

// Creates (or truncates) a file for writing.
FileDescriptor create_for_writing(const std::filesystem::path& path, std::string_view kind);
void write_exactly(int fd, const std::filesystem::path& path, std::span<const std::byte> bytes);

}  // namespace parity::importers
