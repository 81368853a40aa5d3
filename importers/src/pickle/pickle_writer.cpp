#include "pickle/pickle_writer.hpp"

#include <limits>

#include "io/little_endian.hpp"
#include "parity/core/error.hpp"
#include "pickle/pickle_opcodes.hpp"

namespace parity::importers {

namespace op = pickle_op;

PickleWriter::PickleWriter() {
  op(op::kProto);
  bytes_.push_back(2);
}

PickleWriter& PickleWriter::op(std::uint8_t opcode) {
  bytes_.push_back(static_cast<char>(opcode));
  return *this;
}

PickleWriter& PickleWriter::global(std::string_view module, std::string_view name) {
  op(op::kGlobal);
  bytes_.append(module).push_back('\n');
  bytes_.append(name).push_back('\n');
  return *this;
}

PickleWriter& PickleWriter::text(std::string_view utf8) {
  if (utf8.size() > std::numeric_limits<std::uint32_t>::max())
    throw Error("a string of " + std::to_string(utf8.size()) + " bytes does not fit a pickle",
                "pickle writer");
  op(op::kBinUnicode);
  append_le<std::uint32_t>(bytes_, static_cast<std::uint32_t>(utf8.size()));
  bytes_.append(utf8);
  return *this;
}

PickleWriter& PickleWriter::integer(std::int64_t value) {
  if (value >= 0 && value <= 0xff) {
    op(op::kBinInt1);
    bytes_.push_back(static_cast<char>(value));
  } else if (value >= 0 && value <= 0xffff) {
    op(op::kBinInt2);
    append_le<std::uint16_t>(bytes_, static_cast<std::uint16_t>(value));
  } else if (value >= std::numeric_limits<std::int32_t>::min() &&
             value <= std::numeric_limits<std::int32_t>::max()) {
    op(op::kBinInt);
    append_le<std::uint32_t>(bytes_, static_cast<std::uint32_t>(static_cast<std::int32_t>(value)));
  } else {
    // LONG1: the shortest little-endian two's complement that keeps the sign.
    std::string digits;
    const auto bits = static_cast<std::uint64_t>(value);
    for (std::size_t i = 0; i < 8; ++i)
      digits.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
    const char fill = value < 0 ? '\xff' : '\0';
    while (digits.size() > 1 && digits.back() == fill &&
           ((digits[digits.size() - 2] & 0x80) != 0) == (value < 0))
      digits.pop_back();
    op(op::kLong1);
    bytes_.push_back(static_cast<char>(digits.size()));
    bytes_ += digits;
  }
  return *this;
}

PickleWriter& PickleWriter::integers(std::span<const std::int64_t> values) {
  if (values.empty()) return empty_tuple();
  mark();
  for (const std::int64_t value : values) integer(value);
  return tuple();
}

PickleWriter& PickleWriter::mark() { return op(op::kMark); }
PickleWriter& PickleWriter::tuple() { return op(op::kTuple); }
PickleWriter& PickleWriter::empty_tuple() { return op(op::kEmptyTuple); }
PickleWriter& PickleWriter::reduce() { return op(op::kReduce); }
PickleWriter& PickleWriter::persistent_id() { return op(op::kBinPersId); }
PickleWriter& PickleWriter::boolean(bool value) { return op(value ? op::kNewTrue : op::kNewFalse); }
PickleWriter& PickleWriter::set_items() { return op(op::kSetItems); }

std::string PickleWriter::finish() {
  op(op::kStop);
  return std::move(bytes_);
}

}  // namespace parity::importers
