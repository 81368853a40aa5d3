// Inflating one deflated zip member (raw deflate, RFC 1951) in bounded
// chunks straight from the file: memory stays at one input buffer whatever
// the member's size, and a member that inflates to more bytes than the
// directory declares is stopped one byte past that size (a zip bomb cannot
// make us produce more).
#pragma once

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "parity/importers/zip_archive.hpp"

namespace parity::importers {

class MemberInflater {
 public:
  MemberInflater(int fd, const std::filesystem::path& path, const ZipMember& member);
  ~MemberInflater();
  MemberInflater(const MemberInflater&) = delete;
  MemberInflater& operator=(const MemberInflater&) = delete;

  // Fills `out` with the next inflated bytes and returns how many: out.size()
  // until the end of the member, then fewer, then 0. Throws parity::Error
  // naming the member for corrupt data, a stream that inflates to more or
  // fewer bytes than declared, or compressed bytes left after its end.
  std::size_t read(std::span<std::byte> out);

 private:
  void refill();
  [[noreturn]] void fail(const std::string& what, const std::string& hint) const;

  int fd_;
  const std::filesystem::path& path_;
  const ZipMember& member_;
  z_stream stream_{};
  std::vector<std::byte> input_;
  std::uint64_t next_input_offset_ = 0;
  std::uint64_t input_left_ = 0;  // compressed bytes not yet read from the file
  std::uint64_t produced_ = 0;
  bool finished_ = false;
};

}  // namespace parity::importers
