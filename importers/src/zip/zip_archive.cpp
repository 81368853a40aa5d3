#include "parity/importers/zip_archive.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <utility>

#include "io/posix_file.hpp"
#include "parity/core/error.hpp"
#include "zip/zip_directory.hpp"
#include "zip/zip_format.hpp"
#include "zip/zip_inflate.hpp"

namespace parity::importers {
namespace {

constexpr std::size_t kChunkBytes = 64 * 1024;

std::string crc_text(std::uint32_t crc) {
  char text[11];
  std::snprintf(text, sizeof text, "0x%08x", crc);
  return text;
}

void refuse_unknown_method(const ZipMember& member, const std::filesystem::path& path) {
  if (member.method != zip::kMethodStored && member.method != zip::kMethodDeflated)
    throw Error("the member is compressed with method " + std::to_string(member.method) +
                    ", which Parity does not read",
                at_member(path, member.name),
                "Parity reads stored and deflated members; zip the files again with one of "
                "those (Python: zipfile.ZIP_STORED or ZIP_DEFLATED)");
}

}  // namespace

ZipArchive ZipArchive::open(const std::filesystem::path& path) {
  OpenedFile file = open_for_reading(path, "zip file");
  ZipArchive archive;
  archive.path_ = path;
  archive.file_size_ = file.size;
  archive.members_ = read_zip_directory(file.fd.get(), path, file.size);
  for (std::size_t i = 0; i < archive.members_.size(); ++i)
    archive.index_.emplace(archive.members_[i].name, i);
  archive.fd_ = std::move(file.fd);
  return archive;
}

const ZipMember* ZipArchive::find(std::string_view name) const {
  const auto it = index_.find(name);
  return it == index_.end() ? nullptr : &members_[it->second];
}

void ZipArchive::read_stored(const ZipMember& member, std::uint64_t offset,
                             std::span<std::byte> out) const {
  if (!member.is_stored())
    throw Error("the member is compressed, not stored, so it cannot be read in place",
                at_member(path_, member.name), "read it whole with read_all()");
  if (offset > member.uncompressed_size || out.size() > member.uncompressed_size - offset)
    throw Error("bytes [" + std::to_string(offset) + ", " + std::to_string(offset + out.size()) +
                    ") run past the member's " + std::to_string(member.uncompressed_size) +
                    " bytes",
                at_member(path_, member.name), "read within the member's uncompressed_size");
  read_exactly(fd_.get(), path_, member.data_offset + offset, out, "member '" + member.name + "'");
}

void ZipArchive::read_chunks(const ZipMember& member, std::uint64_t max_bytes,
                             const ChunkSink& sink) const {
  refuse_unknown_method(member, path_);
  if (member.uncompressed_size > max_bytes)
    throw Error("the member declares " + std::to_string(member.uncompressed_size) +
                    " bytes, more than the limit of " + std::to_string(max_bytes),
                at_member(path_, member.name),
                "the archive is forged (a zip bomb) or not what this reader expects");
  std::vector<std::byte> chunk(std::min<std::uint64_t>(kChunkBytes, member.uncompressed_size));
  uLong crc = crc32_z(0, nullptr, 0);
  const auto deliver = [&](std::span<const std::byte> bytes) {
    crc = crc32_z(crc, reinterpret_cast<const Bytef*>(bytes.data()), bytes.size());
    sink(bytes);
  };
  if (member.is_stored()) {
    for (std::uint64_t offset = 0; offset < member.uncompressed_size; offset += chunk.size()) {
      const auto size = static_cast<std::size_t>(
          std::min<std::uint64_t>(chunk.size(), member.uncompressed_size - offset));
      read_stored(member, offset, std::span(chunk).first(size));
      deliver(std::span(chunk).first(size));
    }
  } else {
    MemberInflater inflater(fd_.get(), path_, member);
    // One byte of room even for an empty member, to see its end marker (or more bytes).
    if (chunk.empty()) chunk.resize(1);
    while (const std::size_t size = inflater.read(chunk)) deliver(std::span(chunk).first(size));
  }
  if (crc != member.crc32)
    throw Error("CRC-32 mismatch: the data's is " + crc_text(static_cast<std::uint32_t>(crc)) +
                    ", the directory says " + crc_text(member.crc32),
                at_member(path_, member.name),
                "the member's bytes are damaged; copy the archive again from its source");
}

std::vector<std::byte> ZipArchive::read_all(const ZipMember& member,
                                            std::uint64_t max_bytes) const {
  std::vector<std::byte> out;
  // The declared size is within max_bytes once read_chunks has checked it;
  // reserving afterwards never trusts a size past the caller's limit.
  read_chunks(member, max_bytes, [&](std::span<const std::byte> bytes) {
    if (out.empty()) out.reserve(member.uncompressed_size);
    out.insert(out.end(), bytes.begin(), bytes.end());
  });
  return out;
}

std::vector<std::byte> ZipArchive::read_prefix(const ZipMember& member,
                                               std::uint64_t max_bytes) const {
  refuse_unknown_method(member, path_);
  std::vector<std::byte> out(std::min(max_bytes, member.uncompressed_size));
  if (member.is_stored()) {
    read_stored(member, 0, out);
  } else {
    // Short of the end, read() fills `out` or throws (a stream that ends
    // early inflates to fewer bytes than declared).
    MemberInflater(fd_.get(), path_, member).read(out);
  }
  return out;
}

}  // namespace parity::importers
