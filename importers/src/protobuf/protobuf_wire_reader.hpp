// WireReader: reads protobuf fields from a byte range of a file without
// loading the range. Keys, varints and short strings are read through a
// ReadAheadWindow; a length-delimited field comes back as the position and
// size of its payload, which the caller reads as a nested message, reads as
// text, or only remembers (a tensor's bytes). Every varint and length is
// checked against the end of the range; a fault throws WireError with the
// file offset where it lies, for the caller to name its file and record.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "io/read_ahead_window.hpp"
#include "protobuf/protobuf_wire.hpp"

namespace parity::importers::protobuf {

class WireError : public std::runtime_error {
 public:
  WireError(const std::string& message, std::uint64_t offset)
      : std::runtime_error(message), offset_(offset) {}
  // File offset of the faulty byte or field.
  std::uint64_t offset() const { return offset_; }

 private:
  std::uint64_t offset_;
};

// A payload's place in the file.
struct ByteRange {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint64_t end() const { return offset + size; }
};

class WireReader {
 public:
  // Reads the fields of the message occupying `range` of the window's file.
  WireReader(ReadAheadWindow& file, ByteRange range);

  bool at_end() const { return position_ == end_; }
  std::uint64_t position() const { return position_; }
  std::uint64_t remaining() const { return end_ - position_; }

  // The next field's key. Throws for field number 0 or beyond 2^29 - 1 and for
  // wire types 6 and 7, which do not exist.
  FieldKey read_key();
  std::uint64_t read_varint();
  // A length-delimited field's payload, which the reader then steps over.
  ByteRange read_length_delimited();
  // A length-delimited payload as text, refused beyond `max_size` bytes;
  // `what` ("the tag") names it in errors.
  std::string read_string(std::size_t max_size, std::string_view what);
  // Steps over the value of a field of wire type `type` (groups are refused).
  void skip(WireType type);

 private:
  void require(std::uint64_t size, std::string_view what) const;

  ReadAheadWindow& file_;
  std::uint64_t position_;
  std::uint64_t end_;
};

}  // namespace parity::importers::protobuf
