#include "pickle/pickle_machine.hpp"

#include <algorithm>

#include "parity/core/error.hpp"
#include "pickle/pickle_opcodes.hpp"
#include "pickle/pickle_text.hpp"

namespace parity::importers {

std::string hex_byte(std::uint8_t byte) {
  constexpr char kDigits[] = "0123456789abcdef";
  return std::string("0x") + kDigits[byte >> 4] + kDigits[byte & 0xf];
}

std::string printable(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, 80)) {
    const auto byte = static_cast<std::uint8_t>(c);
    if (byte >= 0x20 && byte < 0x7f)
      out.push_back(c);
    else
      out += "\\x" + hex_byte(byte).substr(2);
  }
  if (text.size() > 80) out += "...";
  return out;
}

Pickle PickleMachine::run() {
  for (;;) {
    opcode_offset_ = input_.position();
    if (input_.remaining() == 0)
      fail(
          "the pickle ends at offset " + std::to_string(opcode_offset_) + " before its STOP opcode",
          kPickleTruncatedHint);
    const auto opcode = std::to_integer<std::uint8_t>(input_.take(1)[0]);
    if (opcode == pickle_op::kStop) break;
    execute(opcode);
  }
  pickle_.root = pop();
  pickle_.end_offset = input_.position();
  return std::move(pickle_);
}

void PickleMachine::fail(const std::string& what, std::string_view hint) const {
  throw Error(what, std::string(where_) + ", offset " + std::to_string(opcode_offset_),
              std::string(hint));
}

std::span<const std::byte> PickleMachine::read(std::uint64_t count, std::string_view what) {
  if (count > input_.remaining())
    fail("the pickle ends at offset " + std::to_string(input_.position() + input_.remaining()) +
             " inside " + std::string(what) + " (" + std::to_string(count) + " bytes needed, " +
             std::to_string(input_.remaining()) + " left)",
         kPickleTruncatedHint);
  return input_.take(static_cast<std::size_t>(count));
}

std::uint64_t PickleMachine::read_uint(std::size_t bytes, std::string_view what) {
  const auto data = read(bytes, what);
  std::uint64_t value = 0;
  for (std::size_t i = bytes; i-- > 0;)
    value = (value << 8) | std::to_integer<std::uint64_t>(data[i]);
  return value;
}

std::string PickleMachine::read_text(std::uint64_t count, std::string_view what) {
  // A length past the input is reported as truncation, by read().
  if (count <= input_.remaining() && count > limits_.max_string)
    fail(std::string(what) + " of " + std::to_string(count) +
         " bytes is longer than the limit of " + std::to_string(limits_.max_string));
  const auto data = read(count, what);
  return std::string(reinterpret_cast<const char*>(data.data()), data.size());
}

// The argument of a protocol 0 opcode: text up to a newline.
std::string PickleMachine::read_line(std::string_view what) {
  std::string line;
  for (;;) {
    const char c = static_cast<char>(read(1, what)[0]);
    if (c == '\n') return line;
    if (line.size() >= limits_.max_line)
      fail(std::string(what) + " is longer than " + std::to_string(limits_.max_line) + " bytes");
    line.push_back(c);
  }
}

std::string PickleMachine::read_utf8(std::uint64_t length) {
  std::string text = read_text(length, "a str");
  if (!is_pickle_utf8(text)) fail("a str is not valid UTF-8");
  return text;
}

// A memo key: a decimal within int64, not negative.
std::uint64_t PickleMachine::read_memo_key_line(std::string_view what) {
  const std::string line = read_line(what);
  const auto value = parse_pickle_decimal(line);
  if (!value || *value < 0)
    fail(std::string(what) + " '" + printable(line) + "' is not a memo key");
  return static_cast<std::uint64_t>(*value);
}

// INT and LONG: decimal text of any size up to kMaxPickleDecimalDigits.
PickleId PickleMachine::make_decimal(const std::string& line, std::string_view opcode) {
  if (const auto value = parse_pickle_decimal(line)) return make_int(*value);
  auto bytes = parse_pickle_decimal_bytes(line);
  if (!bytes)
    fail(std::string(opcode) + " '" + printable(line) + "' is not an integer of at most " +
         std::to_string(kMaxPickleDecimalDigits) + " digits");
  return make_text(PickleKind::kLargeInt, std::move(*bytes));
}

PickleId PickleMachine::add(PickleKind kind) {
  if (pickle_.values.size() >= limits_.max_values)
    fail("the pickle makes more than " + std::to_string(limits_.max_values) + " values",
         "Parity reads checkpoints of up to that many values; this file is not one it can read");
  PickleValue& value = pickle_.values.emplace_back();
  value.kind = kind;
  value.offset = opcode_offset_;
  return static_cast<PickleId>(pickle_.values.size() - 1);
}

PickleId PickleMachine::add_sequence(PickleKind kind, std::vector<PickleId> items) {
  const PickleId id = add(kind);
  at(id).items = std::move(items);
  return id;
}

PickleId PickleMachine::make_text(PickleKind kind, std::string text) {
  const PickleId id = add(kind);
  at(id).text = std::move(text);
  return id;
}

// A call or a persistent id: `argument` is its argument tuple or its id.
PickleId PickleMachine::make_reference(PickleKind kind, PickleId argument, std::string callee) {
  const PickleId id = make_text(kind, std::move(callee));
  at(id).argument = argument;
  return id;
}

PickleId PickleMachine::make_int(std::int64_t value) {
  const PickleId id = add(PickleKind::kInt);
  at(id).integer = value;
  return id;
}

PickleId PickleMachine::make_bool(bool value) {
  const PickleId id = add(PickleKind::kBool);
  at(id).boolean = value;
  return id;
}

PickleId PickleMachine::make_float(double value) {
  const PickleId id = add(PickleKind::kFloat);
  at(id).real = value;
  return id;
}

// Values copied from an existing node count against the value limit, so a
// memoized container copied over and over cannot exhaust memory.
void PickleMachine::charge_copy(std::size_t count) {
  copied_ += count;
  if (copied_ > limits_.max_values)
    fail("the pickle copies more than " + std::to_string(limits_.max_values) + " values");
}

void PickleMachine::push(PickleId id) {
  if (stack_.size() >= limits_.max_stack)
    fail("the pickle's stack grows past " + std::to_string(limits_.max_stack) + " values");
  stack_.push_back(id);
}

PickleId& PickleMachine::top() {
  if (stack_.size() <= frame_base())
    fail("stack underflow: an opcode needs a value that is not there");
  return stack_.back();
}

PickleId PickleMachine::pop() {
  const PickleId id = top();
  stack_.pop_back();
  return id;
}

std::vector<PickleId> PickleMachine::pop_to_mark() {
  if (marks_.empty()) fail("an opcode needs a MARK that is not there");
  std::vector<PickleId> items(stack_.begin() + static_cast<std::ptrdiff_t>(marks_.back()),
                              stack_.end());
  stack_.resize(marks_.back());
  marks_.pop_back();
  return items;
}

PickleValue& PickleMachine::top_of_kind(PickleKind kind, std::string_view opcode) {
  PickleValue& target = at(top());
  if (target.kind != kind)
    fail(std::string(opcode) + " applies to a " + std::string(pickle_kind_name(target.kind)) +
         ", not a " + std::string(pickle_kind_name(kind)));
  return target;
}

void PickleMachine::append_items(PickleKind kind, std::vector<PickleId> items,
                                 std::string_view opcode) {
  auto& target = top_of_kind(kind, opcode).items;
  target.insert(target.end(), items.begin(), items.end());
}

void PickleMachine::set_items(std::vector<PickleId> items) {
  if (items.size() % 2 != 0) fail("SETITEMS has a key without a value");
  auto& entries = top_of_kind(PickleKind::kDict, "SETITEMS").entries;
  for (std::size_t i = 0; i < items.size(); i += 2) entries.emplace_back(items[i], items[i + 1]);
}

void PickleMachine::memo_put(std::uint64_t key) {
  const PickleId value = top();
  if (memo_.size() >= limits_.max_memo && !memo_.contains(key))
    fail("the pickle's memo grows past " + std::to_string(limits_.max_memo) + " entries");
  memo_[key] = value;
}

void PickleMachine::memo_get(std::uint64_t key) {
  const auto found = memo_.find(key);
  if (found == memo_.end())
    fail("memo entry " + std::to_string(key) + " is read before it is written");
  push(found->second);
}

// LONG1 and LONG4: little-endian two's complement of `length` bytes.
PickleId PickleMachine::make_long(std::uint64_t length) {
  const auto bytes = read(length, "a long integer");
  const bool negative = length > 0 && (std::to_integer<std::uint8_t>(bytes[length - 1]) & 0x80);
  const std::uint8_t sign_byte = negative ? 0xff : 0x00;
  // Bytes past the eighth must be sign extension for the value to fit.
  bool fits = true;
  for (std::size_t i = 8; i < length; ++i)
    fits = fits && std::to_integer<std::uint8_t>(bytes[i]) == sign_byte;
  if (length > 8 && fits)
    fits = ((std::to_integer<std::uint8_t>(bytes[7]) & 0x80) != 0) == negative;
  if (!fits)
    return make_text(PickleKind::kLargeInt,
                     std::string(reinterpret_cast<const char*>(bytes.data()), length));
  std::uint64_t value = negative ? ~std::uint64_t{0} : 0;
  for (std::size_t i = std::min<std::uint64_t>(length, 8); i-- > 0;)
    value = (value << 8) | std::to_integer<std::uint64_t>(bytes[i]);
  return make_int(static_cast<std::int64_t>(value));
}

Pickle read_pickle(PickleInput& input, std::string_view where, const PickleLimits& limits) {
  return PickleMachine(input, where, limits).run();
}

}  // namespace parity::importers
