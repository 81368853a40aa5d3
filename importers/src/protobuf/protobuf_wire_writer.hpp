// Encoding side of the protobuf wire format: appends keys, varints and
// length-delimited fields to a byte string, and computes encoded sizes, so
// that a writer can emit a message's header before streaming a large payload
// it never copies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "protobuf/protobuf_wire.hpp"

namespace parity::importers::protobuf {

std::size_t varint_size(std::uint64_t value);
void append_varint(std::string& out, std::uint64_t value);
void append_key(std::string& out, std::uint32_t field_number, WireType type);

// Bytes of a whole varint field: key and value.
std::uint64_t varint_field_size(std::uint32_t field_number, std::uint64_t value);
// Bytes of a whole length-delimited field: key, length and payload.
std::uint64_t length_delimited_field_size(std::uint32_t field_number, std::uint64_t payload_size);
// Appends the key and length of a length-delimited field; the caller appends
// (or writes) the `payload_size` bytes that follow.
void append_length_delimited_header(std::string& out, std::uint32_t field_number,
                                    std::uint64_t payload_size);
void append_length_delimited(std::string& out, std::uint32_t field_number,
                             std::string_view payload);

}  // namespace parity::importers::protobuf
