#include "protobuf/protobuf_wire_reader.hpp"

#include <span>

namespace parity::importers::protobuf {

WireReader::WireReader(ReadAheadWindow& file, ByteRange range)
    : file_(file), position_(range.offset), end_(range.end()) {}

void WireReader::require(std::uint64_t size, std::string_view what) const {
  if (size > remaining())
    throw WireError(std::string(what) + " of " + std::to_string(size) +
                        " bytes runs past the end of its message, which has " +
                        std::to_string(remaining()) + " bytes left",
                    position_);
}

std::uint64_t WireReader::read_varint() {
  const std::uint64_t start = position_;
  std::uint64_t value = 0;
  for (int shift = 0;; shift += 7) {
    if (at_end())
      throw WireError("a varint runs past the end of its message (a truncated file?)", start);
    const auto byte = std::to_integer<std::uint64_t>(file_.at(position_++));
    // The tenth byte may hold only the 64th bit, and must end the varint.
    if (shift == 7 * (kMaxVarintBytes - 1) && byte > 1)
      throw WireError("a varint overflows 64 bits or runs longer than " +
                          std::to_string(kMaxVarintBytes) + " bytes",
                      start);
    value |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
}

FieldKey WireReader::read_key() {
  const std::uint64_t start = position_;
  const std::uint64_t key = read_varint();
  const std::uint64_t number = key >> 3;
  const auto type = static_cast<unsigned>(key & 7);
  if (number == 0 || number > kMaxFieldNumber)
    throw WireError("field number " + std::to_string(number) + " is out of range", start);
  if (type > static_cast<unsigned>(WireType::kFixed32))
    throw WireError("field " + std::to_string(number) + " has wire type " + std::to_string(type) +
                        ", which does not exist",
                    start);
  return {static_cast<std::uint32_t>(number), static_cast<WireType>(type)};
}

ByteRange WireReader::read_length_delimited() {
  const std::uint64_t length = read_varint();
  require(length, "a length-delimited field");
  const ByteRange payload{position_, length};
  position_ += length;
  return payload;
}

std::string WireReader::read_string(std::size_t max_size, std::string_view what) {
  const std::uint64_t start = position_;
  const ByteRange payload = read_length_delimited();
  if (payload.size > max_size)
    throw WireError(std::string(what) + " has " + std::to_string(payload.size) +
                        " bytes, more than the " + std::to_string(max_size) + " allowed",
                    start);
  std::string text(static_cast<std::size_t>(payload.size), '\0');
  file_.read(payload.offset, std::as_writable_bytes(std::span(text)));
  return text;
}

void WireReader::skip(WireType type) {
  switch (type) {
    case WireType::kVarint:
      read_varint();
      return;
    case WireType::kFixed64:
      require(8, "a fixed64 value");
      position_ += 8;
      return;
    case WireType::kFixed32:
      require(4, "a fixed32 value");
      position_ += 4;
      return;
    case WireType::kLengthDelimited:
      read_length_delimited();
      return;
    case WireType::kStartGroup:
    case WireType::kEndGroup:
      break;
  }
  throw WireError("a group field (deprecated protobuf groups are not supported)", position_);
}

}  // namespace parity::importers::protobuf
