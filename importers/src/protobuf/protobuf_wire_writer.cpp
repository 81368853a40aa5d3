#include "protobuf/protobuf_wire_writer.hpp"

namespace parity::importers::protobuf {
namespace {
std::uint64_t key_of(std::uint32_t field_number, WireType type) {
  return (std::uint64_t{field_number} << 3) | static_cast<std::uint64_t>(type);
}
}  // namespace

std::size_t varint_size(std::uint64_t value) {
  std::size_t size = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++size;
  }
  return size;
}

void append_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void append_key(std::string& out, std::uint32_t field_number, WireType type) {
  append_varint(out, key_of(field_number, type));
}

std::uint64_t varint_field_size(std::uint32_t field_number, std::uint64_t value) {
  return varint_size(key_of(field_number, WireType::kVarint)) + varint_size(value);
}

std::uint64_t length_delimited_field_size(std::uint32_t field_number, std::uint64_t payload_size) {
  return varint_size(key_of(field_number, WireType::kLengthDelimited)) + varint_size(payload_size) +
         payload_size;
}

void append_length_delimited_header(std::string& out, std::uint32_t field_number,
                                    std::uint64_t payload_size) {
  append_key(out, field_number, WireType::kLengthDelimited);
  append_varint(out, payload_size);
}

void append_length_delimited(std::string& out, std::uint32_t field_number,
                             std::string_view payload) {
  append_length_delimited_header(out, field_number, payload.size());
  out.append(payload);
}

}  // namespace parity::importers::protobuf
