// ZipArchive: a read-only zip file (PKWARE APPNOTE), as used by PyTorch's
// .pth/.pt (stored, 64-byte aligned members) and NumPy's .npz (stored or
// deflated). Opening reads the end-of-central-directory record (ZIP64 too)
// and the central directory, and checks every entry against the file size;
// members are then read on demand with positioned reads. Inflating is
// bounded: a member that inflates past its declared size, or a declared size
// past the caller's limit, is an error (zip bombs), and every member's CRC-32
// is checked when it is read whole. Every fault is a parity::Error naming the
// file and the member.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parity/importers/file_descriptor.hpp"

namespace parity::importers {

struct ZipMember {
  std::string name;
  std::uint16_t method = 0;  // 0 stored, 8 deflated; others are refused when read
  std::uint32_t crc32 = 0;
  std::uint64_t compressed_size = 0;
  std::uint64_t uncompressed_size = 0;
  std::uint64_t local_header_offset = 0;
  // File offset of the member's first data byte (after its local header),
  // resolved and checked when the archive is opened.
  std::uint64_t data_offset = 0;

  bool is_stored() const { return method == 0; }
};

class ZipArchive {
 public:
  // Throws parity::Error for a file that is not a zip, a truncated or
  // inconsistent directory, an encrypted or multi-disk archive, duplicate
  // names, or a member whose data would run past the end of the file.
  static ZipArchive open(const std::filesystem::path& path);

  const std::filesystem::path& path() const { return path_; }
  std::uint64_t file_size() const { return file_size_; }
  // Members in central-directory order.
  const std::vector<ZipMember>& members() const { return members_; }
  const ZipMember* find(std::string_view name) const;

  // Bytes [offset, offset + out.size()) of a stored member, read in place
  // (no copy of the whole member). Throws for a deflated member or a range
  // past the member's end. Thread-safe.
  void read_stored(const ZipMember& member, std::uint64_t offset, std::span<std::byte> out) const;
  // The whole member, inflated if needed, CRC-32 checked. Throws when its
  // uncompressed size exceeds `max_bytes`, when it inflates to more or fewer
  // bytes than declared, or on a CRC mismatch. Thread-safe.
  std::vector<std::byte> read_all(const ZipMember& member, std::uint64_t max_bytes) const;
  // The whole member in order, inflated if needed, handed to `sink` in chunks
  // of at most 64 KiB, so that a caller can place the bytes without holding
  // the member twice. Checks as read_all; on a throw the sink may already
  // have seen some (bad) bytes, which the caller must then discard.
  using ChunkSink = std::function<void(std::span<const std::byte>)>;
  void read_chunks(const ZipMember& member, std::uint64_t max_bytes, const ChunkSink& sink) const;
  // The first min(max_bytes, uncompressed_size) bytes of the member, inflating
  // only as far as needed (e.g. to read a header at its start). No CRC check:
  // that needs the whole member. Thread-safe.
  std::vector<std::byte> read_prefix(const ZipMember& member, std::uint64_t max_bytes) const;

 private:
  ZipArchive() = default;

  std::filesystem::path path_;
  FileDescriptor fd_;
  std::uint64_t file_size_ = 0;
  std::vector<ZipMember> members_;
  std::map<std::string, std::size_t, std::less<>> index_;
};

}  // namespace parity::importers
