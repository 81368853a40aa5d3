#include "io/posix_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "parity/core/error.hpp"

namespace parity::importers {

OpenedFile open_for_reading(const std::filesystem::path& path, std::string_view kind) {
  OpenedFile file{FileDescriptor(::open(path.c_str(), O_RDONLY | O_CLOEXEC))};
  if (file.fd.get() < 0)
    throw Error("cannot open " + std::string(kind) + ": " + std::strerror(errno), path.string(),
                "check the path and its permissions");
  struct stat status {};
  if (::fstat(file.fd.get(), &status) != 0)
    throw Error("cannot read " + std::string(kind) + ": " + std::strerror(errno), path.string());
  if (!S_ISREG(status.st_mode))
    throw Error("not a regular file", path.string(), "pass a " + std::string(kind));
  file.size = static_cast<std::uint64_t>(status.st_size);
  return file;
}

void read_exactly(int fd, const std::filesystem::path& path, std::uint64_t offset,
                  std::span<std::byte> out, std::string_view what) {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t got =
        ::pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      throw Error("cannot read " + std::string(what) + ": " + std::strerror(errno),
                  path.string() + ", offset " + std::to_string(offset + done));
    }
    if (got == 0)
      throw Error("the file ends at offset " + std::to_string(offset + done) + " while reading " +
                      std::string(what),
                  path.string() + ", offset " + std::to_string(offset + done),
                  "the file is truncated, or it shrank after it was opened; copy it again "
                  "from its source");
    done += static_cast<std::size_t>(got);
  }
}

FileDescriptor create_for_writing(const std::filesystem::path& path, std::string_view kind) {
  FileDescriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0)
    throw Error("cannot create " + std::string(kind) + ": " + std::strerror(errno), path.string(),
                "check that the folder exists and is writable");
  return fd;
}

void write_exactly(int fd, const std::filesystem::path& path, std::span<const std::byte> bytes,
                   std::string_view kind) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      throw Error("cannot write " + std::string(kind) + ": " + std::strerror(errno), path.string(),
                  "check the free space and the permissions of the folder");
    }
    bytes = bytes.subspan(static_cast<std::size_t>(written));
  }
}

}  // namespace parity::importers
