// The protocol buffers wire format, as far as Parity's readers and writers
// need it: a message is a sequence of fields, each a key (field number and
// wire type, as a varint) followed by a varint, a fixed 4- or 8-byte value or
// a length-delimited payload. https://protobuf.dev/programming-guides/encoding/
#pragma once

#include <cstdint>
#include <string_view>

namespace parity::importers::protobuf {

enum class WireType : std::uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,  // groups are deprecated; no format we read uses them
  kEndGroup = 4,
  kFixed32 = 5,
};

// "varint", "fixed64", "length-delimited", ...
constexpr std::string_view wire_type_name(WireType type) {
  switch (type) {
    case WireType::kVarint:
      return "varint";
    case WireType::kFixed64:
      return "fixed64";
    case WireType::kLengthDelimited:
      return "length-delimited";
    case WireType::kStartGroup:
      return "start-group";
    case WireType::kEndGroup:
      return "end-group";
    case WireType::kFixed32:
      return "fixed32";
  }
  return "invalid";
}

struct FieldKey {
  std::uint32_t number = 0;
  WireType type = WireType::kVarint;
};

// Field numbers run from 1 to 2^29 - 1.
inline constexpr std::uint32_t kMaxFieldNumber = (std::uint32_t{1} << 29) - 1;
// A varint holds 7 bits per byte, so 64 bits take at most 10 bytes.
inline constexpr int kMaxVarintBytes = 10;

}  // namespace parity::importers::protobuf
