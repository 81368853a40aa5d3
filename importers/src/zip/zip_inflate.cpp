#include "zip/zip_inflate.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "io/posix_file.hpp"
#include "parity/core/error.hpp"
#include "zip/zip_directory.hpp"

namespace parity::importers {
namespace {

constexpr std::size_t kInputChunkBytes = 64 * 1024;
constexpr std::string_view kDamagedHint =
    "the member's compressed data is damaged; copy the archive again from its source";

}  // namespace

MemberInflater::MemberInflater(int fd, const std::filesystem::path& path, const ZipMember& member)
    : fd_(fd),
      path_(path),
      member_(member),
      input_(std::min<std::uint64_t>(kInputChunkBytes, member.compressed_size)),
      next_input_offset_(member.data_offset),
      input_left_(member.compressed_size) {
  // A negative window size selects raw deflate: zip members have no zlib header.
  if (inflateInit2(&stream_, -MAX_WBITS) != Z_OK)
    throw Error("cannot start inflating: out of memory", at_member(path_, member_.name));
}

MemberInflater::~MemberInflater() { inflateEnd(&stream_); }

void MemberInflater::fail(const std::string& what, const std::string& hint) const {
  throw Error(what, at_member(path_, member_.name), hint);
}

void MemberInflater::refill() {
  const auto size = static_cast<std::size_t>(std::min<std::uint64_t>(input_.size(), input_left_));
  const std::span<std::byte> chunk(input_.data(), size);
  read_exactly(fd_, path_, next_input_offset_, chunk, "member '" + member_.name + "'");
  next_input_offset_ += size;
  input_left_ -= size;
  stream_.next_in = reinterpret_cast<Bytef*>(chunk.data());
  stream_.avail_in = static_cast<uInt>(size);
}

std::size_t MemberInflater::read(std::span<std::byte> out) {
  std::size_t done = 0;
  while (done < out.size() && !finished_) {
    if (stream_.avail_in == 0 && input_left_ > 0) refill();
    // Room for at most one byte past the declared size: enough to tell a
    // lying size, never more.
    const std::uint64_t allowed = member_.uncompressed_size - produced_ + 1;
    const auto room = static_cast<uInt>(
        std::min<std::uint64_t>({out.size() - done, allowed, std::numeric_limits<uInt>::max()}));
    stream_.next_out = reinterpret_cast<Bytef*>(out.data() + done);
    stream_.avail_out = room;
    const int status = inflate(&stream_, Z_NO_FLUSH);
    const std::size_t made = room - stream_.avail_out;
    done += made;
    produced_ += made;
    if (produced_ > member_.uncompressed_size)
      fail("the member inflates to more than its declared " +
               std::to_string(member_.uncompressed_size) + " bytes",
           "the sizes are forged (a zip bomb) or damaged; do not use this file");
    if (status == Z_STREAM_END) {
      finished_ = true;
      if (produced_ != member_.uncompressed_size)
        fail("the member inflates to " + std::to_string(produced_) + " bytes, not its declared " +
                 std::to_string(member_.uncompressed_size),
             std::string(kDamagedHint));
      if (stream_.avail_in != 0 || input_left_ != 0)
        fail(std::to_string(stream_.avail_in + input_left_) +
                 " compressed bytes follow the end of the deflate stream",
             std::string(kDamagedHint));
    } else if (status == Z_BUF_ERROR && stream_.avail_in == 0 && input_left_ == 0) {
      fail("the deflate stream ends before its end marker (after " +
               std::to_string(member_.compressed_size) + " compressed bytes)",
           "the archive is truncated or damaged; copy it again from its source");
    } else if (status != Z_OK && status != Z_BUF_ERROR) {
      fail(std::string("the deflate data is corrupt: ") + (stream_.msg ? stream_.msg : "no detail"),
           std::string(kDamagedHint));
    } else if (status == Z_BUF_ERROR && made == 0 && stream_.avail_in != 0) {
      // zlib says this cannot happen with room on both sides; if it did, the
      // loop would spin forever.
      fail("inflating makes no progress", std::string(kDamagedHint));
    }
  }
  return done;
}

}  // namespace parity::importers
