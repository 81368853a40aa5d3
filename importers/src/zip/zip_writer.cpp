#include "zip/zip_writer.hpp"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>

#include "io/little_endian.hpp"
#include "parity/core/error.hpp"
#include "zip/zip_format.hpp"

namespace parity::importers {
namespace {

using namespace zip;

constexpr std::uint16_t kDosDate1980 = (0 << 9) | (1 << 5) | 1;  // 1980-01-01
constexpr std::uint16_t kDosTimeMidnight = 0;

bool needs_zip64(std::uint64_t value) { return value >= kZip64Marker32; }

std::uint16_t name_flags(std::string_view name) {
  const bool ascii = std::all_of(name.begin(), name.end(),
                                 [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  return ascii ? 0 : kFlagUtf8Name;
}

std::uint32_t crc_of(std::span<const std::span<const std::byte>> pieces) {
  uLong crc = crc32_z(0, nullptr, 0);
  // zlib takes a null buffer as "start again", so empty pieces are skipped.
  for (const auto piece : pieces)
    if (!piece.empty())
      crc = crc32_z(crc, reinterpret_cast<const Bytef*>(piece.data()), piece.size());
  return static_cast<std::uint32_t>(crc);
}

// The fields every header shares from "version needed" to the name's length.
void append_common_fields(std::string& out, std::uint16_t version_needed, std::string_view name,
                          std::uint32_t crc, std::uint32_t size_field) {
  append_le<std::uint16_t>(out, version_needed);
  append_le<std::uint16_t>(out, name_flags(name));
  append_le<std::uint16_t>(out, kMethodStored);
  append_le<std::uint16_t>(out, kDosTimeMidnight);
  append_le<std::uint16_t>(out, kDosDate1980);
  append_le<std::uint32_t>(out, crc);
  append_le<std::uint32_t>(out, size_field);  // compressed: stored, so the same
  append_le<std::uint32_t>(out, size_field);  // uncompressed
  append_le<std::uint16_t>(out, static_cast<std::uint16_t>(name.size()));
}

std::string zip64_extra(std::span<const std::uint64_t> values) {
  std::string extra;
  append_le<std::uint16_t>(extra, kZip64ExtraId);
  append_le<std::uint16_t>(extra, static_cast<std::uint16_t>(8 * values.size()));
  for (const std::uint64_t value : values) append_le<std::uint64_t>(extra, value);
  return extra;
}

// An extra field of `size` bytes (at least 4: its id and length), which
// readers skip, for padding.
std::string padding_extra(std::uint64_t size) {
  constexpr std::uint16_t kPaddingExtraId = 'F' | ('B' << 8);  // "FB", as PyTorch writes it
  std::string extra;
  append_le<std::uint16_t>(extra, kPaddingExtraId);
  append_le<std::uint16_t>(extra, static_cast<std::uint16_t>(size - 4));
  extra.append(size - 4, 'Z');
  return extra;
}

}  // namespace

ZipWriter::ZipWriter(std::filesystem::path path, bool force_zip64)
    : path_(std::move(path)),
      force_zip64_(force_zip64),
      fd_(create_for_writing(path_, "zip file")) {}

ZipWriter::~ZipWriter() {
  if (finished_) return;
  fd_ = FileDescriptor();
  ::unlink(path_.c_str());
}

void ZipWriter::write(std::string_view bytes) { write(std::as_bytes(std::span(bytes))); }

void ZipWriter::write(std::span<const std::byte> bytes) {
  write_exactly(fd_.get(), path_, bytes);
  offset_ += bytes.size();
}

void ZipWriter::add_stored(std::string_view name,
                           std::span<const std::span<const std::byte>> pieces,
                           std::uint64_t alignment) {
  const std::string where = path_.string() + ", member '" + std::string(name) + "'";
  if (name.size() > 0xffff)
    throw Error("the member name is " + std::to_string(name.size()) +
                    " bytes long, more than zip's limit of 65535",
                where, "use a shorter name");
  if (!names_.emplace(name).second)
    throw Error("two members are named '" + std::string(name) + "'", where,
                "an archive holds each name once; rename one of them");

  Entry entry{std::string(name), crc_of(pieces), 0, offset_};
  for (const auto piece : pieces) entry.size += piece.size();
  const bool zip64 = force_zip64_ || needs_zip64(entry.size);
  const std::uint64_t sizes[] = {entry.size, entry.size};
  // A local header's ZIP64 extra holds both sizes (APPNOTE 4.5.3).
  std::string extra = zip64 ? zip64_extra(sizes) : std::string();
  if (alignment > 1) {
    const std::uint64_t data_start = offset_ + kLocalHeaderSize + name.size() + extra.size();
    std::uint64_t padding = (alignment - data_start % alignment) % alignment;
    if (padding > 0 && padding < 4) padding += alignment;  // room for the field's own header
    if (padding > 0) extra += padding_extra(padding);
  }

  std::string header;
  append_le<std::uint32_t>(header, kLocalHeaderSignature);
  append_common_fields(header, zip64 ? kVersionZip64 : kVersionDeflate, name, entry.crc32,
                       zip64 ? kZip64Marker32 : static_cast<std::uint32_t>(entry.size));
  append_le<std::uint16_t>(header, static_cast<std::uint16_t>(extra.size()));
  header += name;
  header += extra;
  write(header);
  for (const auto piece : pieces) write(piece);
  entries_.push_back(std::move(entry));
}

std::string ZipWriter::central_header(const Entry& entry) const {
  const bool zip64_sizes = force_zip64_ || needs_zip64(entry.size);
  const bool zip64_offset = force_zip64_ || needs_zip64(entry.local_header_offset);
  std::vector<std::uint64_t> zip64_values;
  if (zip64_sizes) zip64_values.insert(zip64_values.end(), {entry.size, entry.size});
  if (zip64_offset) zip64_values.push_back(entry.local_header_offset);
  const std::string extra = zip64_values.empty() ? std::string() : zip64_extra(zip64_values);
  const std::uint16_t version = zip64_values.empty() ? kVersionDeflate : kVersionZip64;

  std::string header;
  append_le<std::uint32_t>(header, kCentralHeaderSignature);
  append_le<std::uint16_t>(header, kVersionZip64);  // made by: APPNOTE 4.5, MS-DOS attributes
  append_common_fields(header, version, entry.name, entry.crc32,
                       zip64_sizes ? kZip64Marker32 : static_cast<std::uint32_t>(entry.size));
  append_le<std::uint16_t>(header, static_cast<std::uint16_t>(extra.size()));
  append_le<std::uint16_t>(header, 0);  // comment length
  append_le<std::uint16_t>(header, 0);  // disk number
  append_le<std::uint16_t>(header, 0);  // internal attributes
  append_le<std::uint32_t>(header, 0);  // external attributes
  append_le<std::uint32_t>(header, zip64_offset
                                       ? kZip64Marker32
                                       : static_cast<std::uint32_t>(entry.local_header_offset));
  header += entry.name;
  header += extra;
  return header;
}

std::string ZipWriter::end_records(std::uint64_t directory_offset,
                                   std::uint64_t directory_size) const {
  const std::uint64_t count = entries_.size();
  const bool zip64 = force_zip64_ || count >= kZip64Marker16 || needs_zip64(directory_offset) ||
                     needs_zip64(directory_size);
  std::string out;
  if (zip64) {
    const std::uint64_t record_offset = directory_offset + directory_size;
    append_le<std::uint32_t>(out, kZip64EndSignature);
    append_le<std::uint64_t>(out, kZip64EndSize - 12);  // counted after this field
    append_le<std::uint16_t>(out, kVersionZip64);
    append_le<std::uint16_t>(out, kVersionZip64);
    append_le<std::uint32_t>(out, 0);  // this disk
    append_le<std::uint32_t>(out, 0);  // the directory's disk
    append_le<std::uint64_t>(out, count);
    append_le<std::uint64_t>(out, count);
    append_le<std::uint64_t>(out, directory_size);
    append_le<std::uint64_t>(out, directory_offset);
    append_le<std::uint32_t>(out, kZip64LocatorSignature);
    append_le<std::uint32_t>(out, 0);  // the ZIP64 record's disk
    append_le<std::uint64_t>(out, record_offset);
    append_le<std::uint32_t>(out, 1);  // disks in all
  }
  // With ZIP64, the classic record's fields point readers to the ZIP64 record.
  const std::uint16_t count16 = zip64 ? kZip64Marker16 : static_cast<std::uint16_t>(count);
  append_le<std::uint32_t>(out, kEndSignature);
  append_le<std::uint16_t>(out, 0);  // this disk
  append_le<std::uint16_t>(out, 0);  // the directory's disk
  append_le<std::uint16_t>(out, count16);
  append_le<std::uint16_t>(out, count16);
  append_le<std::uint32_t>(out,
                           zip64 ? kZip64Marker32 : static_cast<std::uint32_t>(directory_size));
  append_le<std::uint32_t>(out,
                           zip64 ? kZip64Marker32 : static_cast<std::uint32_t>(directory_offset));
  append_le<std::uint16_t>(out, 0);  // comment length
  return out;
}

void ZipWriter::finish() {
  const std::uint64_t directory_offset = offset_;
  std::string directory;
  for (const Entry& entry : entries_) directory += central_header(entry);
  write(directory);
  write(end_records(directory_offset, directory.size()));
  fd_.close_checked(path_);
  finished_ = true;
}

}  // namespace parity::importers
