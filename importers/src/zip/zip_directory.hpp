// Reading a zip file's directory: the end-of-central-directory record (and
// its ZIP64 locator and record), the central directory, and each member's
// local header, all checked against each other and the file's size.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "parity/importers/zip_archive.hpp"

namespace parity::importers {

// Every member, in central-directory order, with data_offset resolved.
// Throws parity::Error naming the file (and the member) for anything a
// well-formed, single-disk, unencrypted archive would not hold.
std::vector<ZipMember> read_zip_directory(int fd, const std::filesystem::path& path,
                                          std::uint64_t file_size);

// "PATH, member 'NAME'": where errors about one member happened.
std::string at_member(const std::filesystem::path& path, std::string_view name);

}  // namespace parity::importers
