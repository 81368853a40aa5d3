// One Checkpoint.Value of a MindSpore checkpoint as it is encoded: its tag
// and, for a tensor, the dims, tensor_type and place of tensor_content. The
// parser checks the wire format (wire types, lengths, duplicate fields,
// negative dims) but not what the values mean; the scan does that.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protobuf/protobuf_wire_reader.hpp"

namespace parity::importers::mindspore {

struct EncodedTensor {
  std::vector<std::int64_t> dims;
  std::string tensor_type;
  protobuf::ByteRange content;
};

struct EncodedValue {
  std::string tag;  // empty until the tag field has been read
  std::optional<EncodedTensor> tensor;
  bool is_map_tensor = false;  // a MapParameter's keys and values, not a tensor
};

// Parses the Value message in `payload`, filling `value` as it goes so that a
// caller catching the protobuf::WireError it throws for a fault still knows
// the tag. Fields a later MindSpore may add are skipped.
void parse_value(ReadAheadWindow& file, protobuf::ByteRange payload, EncodedValue& value);

}  // namespace parity::importers::mindspore
