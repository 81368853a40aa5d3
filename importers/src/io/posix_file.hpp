// Plain POSIX file access for the readers and writers: opening into an owned
// descriptor (FileDescriptor), positioned reads (thread-safe: no shared file offset) and complete
// writes, each failure a parity::Error naming the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

#include "parity/importers/file_descriptor.hpp"

namespace parity::importers {

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
// Writes all of `bytes`; `kind` ("safetensors file") names the file in errors.
void write_exactly(int fd, const std::filesystem::path& path, std::span<const std::byte> bytes,
                   std::string_view kind = "the file");

}  // namespace parity::importers
