#include "zip/zip_directory.hpp"

#include <algorithm>
#include <array>
#include <set>

#include "io/little_endian.hpp"
#include "io/posix_file.hpp"
#include "parity/core/error.hpp"
#include "zip/zip_format.hpp"

namespace parity::importers {
namespace {

namespace fs = std::filesystem;
using namespace zip;

constexpr std::string_view kNotZipHint =
    "the file is not a zip archive (.npz, .pth), or it is truncated; copy it again from its "
    "source";
constexpr std::string_view kDamagedHint =
    "the archive is damaged or was written wrongly; write it again, or copy it again from its "
    "source";

std::string at_offset(const fs::path& path, std::uint64_t offset) {
  return path.string() + ", offset " + std::to_string(offset);
}

std::string range_text(std::uint64_t begin, std::uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

// Reads the little-endian fields of one record in order, refusing to run
// past the record's bytes.
class RecordReader {
 public:
  RecordReader(std::span<const std::byte> bytes, std::string what, std::string where)
      : bytes_(bytes), what_(std::move(what)), where_(std::move(where)) {}

  std::uint16_t u16() { return take<std::uint16_t>(); }
  std::uint32_t u32() { return take<std::uint32_t>(); }
  std::uint64_t u64() { return take<std::uint64_t>(); }
  std::span<const std::byte> bytes(std::size_t count) {
    need(count);
    const auto out = bytes_.subspan(position_, count);
    position_ += count;
    return out;
  }
  void skip(std::size_t count) { bytes(count); }
  std::size_t position() const { return position_; }

 private:
  template <class T>
  T take() {
    need(sizeof(T));
    const T value = load_le<T>(bytes_, position_);
    position_ += sizeof(T);
    return value;
  }
  void need(std::size_t count) const {
    if (count > bytes_.size() - position_)
      throw Error(what_ + " is truncated: it needs " + std::to_string(position_ + count) +
                      " bytes, only " + std::to_string(bytes_.size()) + " are there",
                  where_, std::string(kDamagedHint));
  }

  std::span<const std::byte> bytes_;
  std::size_t position_ = 0;
  std::string what_;
  std::string where_;
};

// `what` names the record that says so; `where` is the file, or the member.
void refuse_multi_disk(std::string_view what, const std::string& where) {
  throw Error("the archive spans several disks (" + std::string(what) + ")", where,
              "Parity reads single-file archives only; join the parts into one zip file");
}

// Where the central directory is, from the end record or its ZIP64 record.
struct DirectoryLocation {
  std::uint64_t entries = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint64_t end_records_offset = 0;  // where the directory must have ended
};

// ZIP64 keeps 64-bit counts and offsets in a record found through a locator
// that sits just before the classic end record.
bool read_zip64_location(int fd, const fs::path& path, std::uint64_t end_offset,
                         DirectoryLocation& location) {
  if (end_offset < kZip64LocatorSize) return false;
  const std::uint64_t locator_offset = end_offset - kZip64LocatorSize;
  std::array<std::byte, kZip64LocatorSize> locator_bytes{};
  read_exactly(fd, path, locator_offset, locator_bytes, "the ZIP64 locator");
  RecordReader locator(locator_bytes, "the ZIP64 locator", at_offset(path, locator_offset));
  if (locator.u32() != kZip64LocatorSignature) return false;
  const std::uint32_t record_disk = locator.u32();
  const std::uint64_t record_offset = locator.u64();
  const std::uint32_t disk_count = locator.u32();
  if (record_disk != 0 || disk_count > 1) refuse_multi_disk("ZIP64 locator", path.string());
  if (record_offset > locator_offset || locator_offset - record_offset < kZip64EndSize)
    throw Error("the ZIP64 end record at offset " + std::to_string(record_offset) +
                    " does not fit before its locator at offset " + std::to_string(locator_offset),
                at_offset(path, locator_offset), std::string(kDamagedHint));

  std::array<std::byte, kZip64EndSize> record_bytes{};
  read_exactly(fd, path, record_offset, record_bytes, "the ZIP64 end record");
  RecordReader record(record_bytes, "the ZIP64 end record", at_offset(path, record_offset));
  if (record.u32() != kZip64EndSignature)
    throw Error("no ZIP64 end record where its locator points", at_offset(path, record_offset),
                std::string(kDamagedHint));
  const std::uint64_t record_size = record.u64();  // counted after this field
  if (record_size < kZip64EndSize - 12 || record_size > locator_offset - record_offset - 12)
    throw Error("the ZIP64 end record declares " + std::to_string(record_size) +
                    " bytes, which do not fit before its locator",
                at_offset(path, record_offset), std::string(kDamagedHint));
  record.skip(4);  // versions made by and needed
  const std::uint32_t disk = record.u32();
  const std::uint32_t directory_disk = record.u32();
  const std::uint64_t entries_on_disk = record.u64();
  location.entries = record.u64();
  location.size = record.u64();
  location.offset = record.u64();
  location.end_records_offset = record_offset;
  if (disk != 0 || directory_disk != 0 || entries_on_disk != location.entries)
    refuse_multi_disk("ZIP64 end record", path.string());
  return true;
}

DirectoryLocation parse_end_record(int fd, const fs::path& path,
                                   std::span<const std::byte> record_bytes,
                                   std::uint64_t end_offset) {
  RecordReader record(record_bytes, "the end-of-central-directory record",
                      at_offset(path, end_offset));
  record.skip(4);  // signature, already matched
  const std::uint16_t disk = record.u16();
  const std::uint16_t directory_disk = record.u16();
  const std::uint16_t entries_on_disk = record.u16();
  DirectoryLocation location;
  location.entries = record.u16();
  location.size = record.u32();
  location.offset = record.u32();
  location.end_records_offset = end_offset;
  if (read_zip64_location(fd, path, end_offset, location)) return location;
  if (disk != 0 || directory_disk != 0 || entries_on_disk != location.entries)
    refuse_multi_disk("end-of-central-directory record", path.string());
  return location;
}

// The end record is the last thing in the file but for its comment (up to
// 64 KiB), and the comment may hold the signature's bytes too: scanning back
// from the end, the record is the first signature whose comment length
// reaches exactly the end of the file.
DirectoryLocation find_directory(int fd, const fs::path& path, std::uint64_t file_size) {
  if (file_size < kEndSize)
    throw Error("the file is too short to be a zip archive: " + std::to_string(file_size) +
                    " bytes, less than the 22-byte end-of-central-directory record",
                path.string(), std::string(kNotZipHint));
  const std::uint64_t tail_size = std::min(file_size, kEndSize + kMaxCommentSize);
  const std::uint64_t tail_offset = file_size - tail_size;
  std::vector<std::byte> tail(tail_size);
  read_exactly(fd, path, tail_offset, tail, "the end of the zip directory");
  const std::span<const std::byte> bytes(tail);
  for (std::size_t at = tail_size - kEndSize + 1; at-- > 0;) {
    if (load_le<std::uint32_t>(bytes, at) != kEndSignature) continue;
    if (at + kEndSize + load_le<std::uint16_t>(bytes, at + 20) != tail_size) continue;
    return parse_end_record(fd, path, bytes.subspan(at, kEndSize), tail_offset + at);
  }
  throw Error(
      "no end-of-central-directory record in the last " + std::to_string(tail_size) + " bytes",
      path.string(), std::string(kNotZipHint));
}

// Replaces each field that holds the ZIP64 marker with its 64-bit value from
// the ZIP64 extra field, where APPNOTE puts them in this order: uncompressed
// size, compressed size, local header offset, disk number. A null pointer is
// a field the header does not have.
struct Zip64Fields {
  std::uint64_t* uncompressed_size = nullptr;
  std::uint64_t* compressed_size = nullptr;
  std::uint64_t* local_header_offset = nullptr;
  std::uint32_t* disk = nullptr;
};

void resolve_zip64(std::span<const std::byte> extra, const Zip64Fields& fields,
                   const std::string& where) {
  const bool need_uncompressed =
      fields.uncompressed_size && *fields.uncompressed_size == kZip64Marker32;
  const bool need_compressed = fields.compressed_size && *fields.compressed_size == kZip64Marker32;
  const bool need_offset =
      fields.local_header_offset && *fields.local_header_offset == kZip64Marker32;
  const bool need_disk = fields.disk && *fields.disk == kZip64Marker16;
  if (!need_uncompressed && !need_compressed && !need_offset && !need_disk) return;

  RecordReader blocks(extra, "the extra field", where);
  while (blocks.position() < extra.size()) {
    const std::uint16_t id = blocks.u16();
    const std::uint16_t size = blocks.u16();
    const auto data = blocks.bytes(size);
    if (id != kZip64ExtraId) continue;
    RecordReader values(data, "the ZIP64 extra field", where);
    if (need_uncompressed) *fields.uncompressed_size = values.u64();
    if (need_compressed) *fields.compressed_size = values.u64();
    if (need_offset) *fields.local_header_offset = values.u64();
    if (need_disk) *fields.disk = values.u32();
    return;
  }
  throw Error("a size or offset is marked ZIP64, but there is no ZIP64 extra field", where,
              std::string(kDamagedHint));
}

void refuse_encrypted(std::uint16_t flags, const std::string& where) {
  if (flags & (kFlagEncrypted | kFlagStrongEncryption))
    throw Error("the member is encrypted", where,
                "Parity reads unencrypted archives only; extract the files and zip them again "
                "without a password");
}

ZipMember parse_central_entry(RecordReader& directory, const fs::path& path,
                              std::uint64_t record_offset, std::size_t index) {
  const std::string where = at_offset(path, record_offset);
  if (directory.u32() != kCentralHeaderSignature)
    throw Error("central directory entry " + std::to_string(index) + " has no signature", where,
                std::string(kDamagedHint));
  ZipMember member;
  directory.skip(4);  // versions made by and needed
  const std::uint16_t flags = directory.u16();
  member.method = directory.u16();
  directory.skip(4);  // modification time and date
  member.crc32 = directory.u32();
  member.compressed_size = directory.u32();
  member.uncompressed_size = directory.u32();
  const std::uint16_t name_size = directory.u16();
  const std::uint16_t extra_size = directory.u16();
  const std::uint16_t comment_size = directory.u16();
  std::uint32_t disk = directory.u16();
  directory.skip(6);  // internal and external attributes
  member.local_header_offset = directory.u32();
  const auto name = directory.bytes(name_size);
  member.name.assign(reinterpret_cast<const char*>(name.data()), name.size());
  const auto extra = directory.bytes(extra_size);
  directory.skip(comment_size);

  const std::string member_where = at_member(path, member.name);
  refuse_encrypted(flags, member_where);
  resolve_zip64(
      extra,
      {&member.uncompressed_size, &member.compressed_size, &member.local_header_offset, &disk},
      member_where);
  if (disk != 0) refuse_multi_disk("the member's disk number", member_where);
  return member;
}

std::vector<ZipMember> read_central_directory(int fd, const fs::path& path,
                                              const DirectoryLocation& location) {
  if (location.offset > location.end_records_offset ||
      location.size > location.end_records_offset - location.offset)
    throw Error(
        "the central directory " + range_text(location.offset, location.offset + location.size) +
            " runs past its end record at offset " + std::to_string(location.end_records_offset),
        path.string(), std::string(kNotZipHint));
  if (location.entries > location.size / kCentralHeaderSize)
    throw Error("the directory declares " + std::to_string(location.entries) +
                    " entries, more than its " + std::to_string(location.size) + " bytes can hold",
                at_offset(path, location.offset), std::string(kDamagedHint));

  std::vector<std::byte> bytes(location.size);
  read_exactly(fd, path, location.offset, bytes, "the central directory");
  RecordReader directory(bytes, "the central directory", at_offset(path, location.offset));
  std::vector<ZipMember> members;
  members.reserve(location.entries);
  for (std::size_t i = 0; i < location.entries; ++i)
    members.push_back(
        parse_central_entry(directory, path, location.offset + directory.position(), i));
  if (directory.position() != bytes.size())
    throw Error("the central directory holds " +
                    std::to_string(bytes.size() - directory.position()) + " bytes after its " +
                    std::to_string(location.entries) + " entries",
                at_offset(path, location.offset + directory.position()), std::string(kDamagedHint));
  return members;
}

// Sizes whose honesty can be judged without reading the data.
void check_sizes(const ZipMember& member, const fs::path& path) {
  if (member.method == kMethodStored && member.compressed_size != member.uncompressed_size)
    throw Error("the stored member's compressed size " + std::to_string(member.compressed_size) +
                    " differs from its size " + std::to_string(member.uncompressed_size),
                at_member(path, member.name), std::string(kDamagedHint));
  if (member.method == kMethodDeflated &&
      member.uncompressed_size / kMaxDeflateRatio > member.compressed_size)
    throw Error("the member declares " + std::to_string(member.uncompressed_size) +
                    " bytes inflated from " + std::to_string(member.compressed_size) +
                    ", more than deflate can produce (" + std::to_string(kMaxDeflateRatio) + ":1)",
                at_member(path, member.name),
                "the sizes are forged (a zip bomb) or damaged; do not use this file");
}

// Reads the member's local header, checks it against the central directory,
// and sets data_offset; the data must end before the central directory.
void resolve_local_header(int fd, const fs::path& path, ZipMember& member,
                          std::uint64_t directory_offset) {
  const std::string where = at_member(path, member.name);
  if (member.local_header_offset > directory_offset ||
      directory_offset - member.local_header_offset < kLocalHeaderSize)
    throw Error("the local header offset " + std::to_string(member.local_header_offset) +
                    " is not before the central directory at offset " +
                    std::to_string(directory_offset),
                where, std::string(kDamagedHint));
  std::array<std::byte, kLocalHeaderSize> fixed{};
  read_exactly(fd, path, member.local_header_offset, fixed, "a local header");
  RecordReader header(fixed, "the local header", where);
  if (header.u32() != kLocalHeaderSignature)
    throw Error("no local header at offset " + std::to_string(member.local_header_offset), where,
                std::string(kDamagedHint));
  header.skip(2);  // version needed
  const std::uint16_t flags = header.u16();
  const std::uint16_t method = header.u16();
  header.skip(4);  // modification time and date
  const std::uint32_t crc = header.u32();
  std::uint64_t compressed_size = header.u32();
  std::uint64_t uncompressed_size = header.u32();
  const std::uint16_t name_size = header.u16();
  const std::uint16_t extra_size = header.u16();

  member.data_offset = member.local_header_offset + kLocalHeaderSize + name_size + extra_size;
  if (member.data_offset > directory_offset ||
      member.compressed_size > directory_offset - member.data_offset)
    throw Error("the member's data " +
                    range_text(member.data_offset, member.data_offset + member.compressed_size) +
                    " runs past the central directory at offset " +
                    std::to_string(directory_offset),
                where, "the file is truncated or damaged; copy it again from its source");
  std::vector<std::byte> variable(name_size + std::size_t{extra_size});
  read_exactly(fd, path, member.local_header_offset + kLocalHeaderSize, variable, "a local header");
  const std::span<const std::byte> name = std::span<const std::byte>(variable).first(name_size);
  if (std::string_view(reinterpret_cast<const char*>(name.data()), name.size()) != member.name)
    throw Error("the local header names another member", where, std::string(kDamagedHint));
  refuse_encrypted(flags, where);
  if (method != member.method)
    throw Error("the local header's method " + std::to_string(method) +
                    " differs from the directory's " + std::to_string(member.method),
                where, std::string(kDamagedHint));
  // With a data descriptor (flag bit 3) the CRC and sizes follow the data and
  // the local header holds zeros; otherwise they must agree with the directory.
  if (flags & kFlagDataDescriptor) return;
  resolve_zip64(std::span<const std::byte>(variable).subspan(name_size),
                {&uncompressed_size, &compressed_size, nullptr, nullptr}, where);
  if (crc != member.crc32 || compressed_size != member.compressed_size ||
      uncompressed_size != member.uncompressed_size)
    throw Error("the local header's CRC-32 or sizes differ from the central directory's", where,
                std::string(kDamagedHint));
}

// Members may not share bytes: overlapping members are how the densest zip
// bombs multiply a small file into terabytes.
void refuse_overlaps(const std::vector<ZipMember>& members, const fs::path& path) {
  std::vector<const ZipMember*> sorted;
  for (const ZipMember& member : members) sorted.push_back(&member);
  std::sort(sorted.begin(), sorted.end(), [](const ZipMember* a, const ZipMember* b) {
    return a->local_header_offset < b->local_header_offset;
  });
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    const ZipMember& before = *sorted[i - 1];
    const ZipMember& after = *sorted[i];
    if (before.data_offset + before.compressed_size > after.local_header_offset)
      throw Error("members '" + before.name + "' and '" + after.name + "' overlap",
                  at_member(path, after.name),
                  "each member must own its bytes; the archive is forged (a zip bomb) or "
                  "damaged");
  }
}

}  // namespace

std::string at_member(const fs::path& path, std::string_view name) {
  return path.string() + ", member '" + std::string(name) + "'";
}

std::vector<ZipMember> read_zip_directory(int fd, const fs::path& path, std::uint64_t file_size) {
  const DirectoryLocation location = find_directory(fd, path, file_size);
  std::vector<ZipMember> members = read_central_directory(fd, path, location);
  std::set<std::string_view> names;
  for (ZipMember& member : members) {
    if (!names.insert(member.name).second)
      throw Error("two members are named '" + member.name + "'", at_member(path, member.name),
                  "an archive must hold each name once; which one is meant is ambiguous");
    check_sizes(member, path);
    resolve_local_header(fd, path, member, location.offset);
  }
  refuse_overlaps(members, path);
  return members;
}

}  // namespace parity::importers
