// FileDescriptor: an owned POSIX file descriptor, closed when destroyed,
// movable, not copyable: how the importers' readers and writers (the open
// SafetensorsFile and ZipArchive among them) hold their files.
#pragma once

#include <filesystem>
#include <string_view>
#include <utility>

namespace parity::importers {

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
  // Closes now, throwing (naming `path`, and the file as `kind`) if the close
  // fails, e.g. on a full disk.
  void close_checked(const std::filesystem::path& path, std::string_view kind = "the file");

 private:
  int fd_ = -1;
};

}  // namespace parity::importers
