#include "parity/importers/file_descriptor.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "parity/core/error.hpp"

namespace parity::importers {

FileDescriptor::FileDescriptor(FileDescriptor&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)) {}

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

void FileDescriptor::close_checked(const std::filesystem::path& path, std::string_view kind) {
  if (::close(std::exchange(fd_, -1)) != 0)
    throw Error("cannot close " + std::string(kind) + ": " + std::strerror(errno), path.string(),
                "check the free space of the disk");
}

}  // namespace parity::importers
