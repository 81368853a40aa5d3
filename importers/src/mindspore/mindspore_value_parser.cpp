#include "mindspore/mindspore_value_parser.hpp"

#include "mindspore/mindspore_checkpoint_format.hpp"

namespace parity::importers::mindspore {
namespace {

using protobuf::ByteRange;
using protobuf::FieldKey;
using protobuf::WireError;
using protobuf::WireReader;
using protobuf::WireType;

// A parameter name; far longer than any real one, small enough to hold.
constexpr std::size_t kMaxTagBytes = 64 * 1024;
constexpr std::size_t kMaxTensorTypeBytes = 256;
// MindSpore tensors have at most 8 dims; the bound stops a damaged file from
// listing millions of them.
constexpr std::size_t kMaxDims = 64;

void expect_wire_type(FieldKey key, WireType expected, std::string_view field,
                      std::uint64_t offset) {
  if (key.type != expected)
    throw WireError(std::string(field) + " (field " + std::to_string(key.number) +
                        ") has wire type " + std::string(protobuf::wire_type_name(key.type)) +
                        ", not " + std::string(protobuf::wire_type_name(expected)),
                    offset);
}

void reject_repeat(bool seen, std::string_view field, std::uint64_t offset) {
  if (seen) throw WireError(std::string(field) + " appears twice in one message", offset);
}

// A length-delimited field that may appear once in its message: checks both,
// then marks it `seen`.
void claim_length_delimited_once(FieldKey key, bool& seen, std::string_view field,
                                 std::uint64_t offset) {
  expect_wire_type(key, WireType::kLengthDelimited, field, offset);
  reject_repeat(seen, field, offset);
  seen = true;
}

void add_dim(std::vector<std::int64_t>& dims, std::uint64_t encoded, std::uint64_t offset) {
  // int64 fields are encoded as the two's complement of their value.
  const auto dim = static_cast<std::int64_t>(encoded);
  if (dim < 0) throw WireError("dimension " + std::to_string(dim) + " is negative", offset);
  if (dims.size() == kMaxDims)
    throw WireError("the tensor has more than " + std::to_string(kMaxDims) + " dimensions", offset);
  dims.push_back(dim);
}

// dims is `repeated int64`: one varint field per dimension, as MindSpore
// writes it, or one packed field (which every protobuf parser must accept).
void read_dims(ReadAheadWindow& file, WireReader& reader, FieldKey key, std::uint64_t offset,
               std::vector<std::int64_t>& dims) {
  if (key.type == WireType::kVarint) {
    add_dim(dims, reader.read_varint(), offset);
    return;
  }
  expect_wire_type(key, WireType::kLengthDelimited, "dims", offset);
  WireReader packed(file, reader.read_length_delimited());
  while (!packed.at_end()) {
    const std::uint64_t dim_offset = packed.position();
    add_dim(dims, packed.read_varint(), dim_offset);
  }
}

EncodedTensor parse_tensor(ReadAheadWindow& file, ByteRange payload) {
  EncodedTensor tensor;
  bool has_type = false, has_content = false;
  WireReader reader(file, payload);
  while (!reader.at_end()) {
    const std::uint64_t offset = reader.position();
    const FieldKey key = reader.read_key();
    switch (key.number) {
      case kTensorDims:
        read_dims(file, reader, key, offset, tensor.dims);
        break;
      case kTensorType:
        claim_length_delimited_once(key, has_type, "tensor_type", offset);
        tensor.tensor_type = reader.read_string(kMaxTensorTypeBytes, "tensor_type");
        break;
      case kTensorContent:
        claim_length_delimited_once(key, has_content, "tensor_content", offset);
        tensor.content = reader.read_length_delimited();
        break;
      default:
        reader.skip(key.type);
    }
  }
  if (!has_type)
    throw WireError("the tensor has no tensor_type (a required field)", payload.offset);
  if (!has_content)
    throw WireError("the tensor has no tensor_content (a required field)", payload.offset);
  return tensor;
}

}  // namespace

void parse_value(ReadAheadWindow& file, ByteRange payload, EncodedValue& value) {
  bool has_tag = false;
  WireReader reader(file, payload);
  while (!reader.at_end()) {
    const std::uint64_t offset = reader.position();
    const FieldKey key = reader.read_key();
    switch (key.number) {
      case kValueTag:
        claim_length_delimited_once(key, has_tag, "the tag", offset);
        value.tag = reader.read_string(kMaxTagBytes, "the tag");
        break;
      case kValueTensor:
        expect_wire_type(key, WireType::kLengthDelimited, "the tensor", offset);
        reject_repeat(value.tensor || value.is_map_tensor, "the tensor or map tensor", offset);
        value.tensor = parse_tensor(file, reader.read_length_delimited());
        break;
      case kValueMapTensor:
        expect_wire_type(key, WireType::kLengthDelimited, "the map tensor", offset);
        reject_repeat(value.tensor || value.is_map_tensor, "the tensor or map tensor", offset);
        reader.read_length_delimited();
        value.is_map_tensor = true;
        break;
      default:
        reader.skip(key.type);
    }
  }
  if (!has_tag) throw WireError("the value has no tag (a required field)", payload.offset);
  if (!value.tensor && !value.is_map_tensor)
    throw WireError("the value holds neither a tensor nor a map tensor", payload.offset);
}

}  // namespace parity::importers::mindspore
