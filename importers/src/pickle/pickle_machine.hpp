// The pickle machine behind read_pickle(): a stack, a stack of marks and a
// memo, driven by one-byte opcodes until STOP. Where Python would build
// objects it builds PickleValue nodes, and it calls nothing. Split by concern:
// the machine's state (pickle_machine.cpp), globals and calls
// (pickle_calls.cpp), and the opcodes (pickle_execute.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "parity/importers/pickle.hpp"

namespace parity::importers {

inline constexpr std::string_view kPickleDamagedHint =
    "the file is damaged or is not a PyTorch checkpoint; save it again with torch.save";
inline constexpr std::string_view kPickleTruncatedHint =
    "the file is truncated; copy it again from its source, or save it again with torch.save";

// "0x2e".
std::string hex_byte(std::uint8_t byte);
// `text` for a message: control and non-ASCII bytes escaped, cut at 80 bytes.
std::string printable(std::string_view text);

class PickleMachine {
 public:
  PickleMachine(PickleInput& input, std::string_view where, const PickleLimits& limits)
      : input_(input), where_(where), limits_(limits) {}

  Pickle run();

 private:
  // An error at the current opcode.
  [[noreturn]] void fail(const std::string& what, std::string_view hint = kPickleDamagedHint) const;

  // Input.
  std::span<const std::byte> read(std::uint64_t count, std::string_view what);
  std::uint64_t read_uint(std::size_t bytes, std::string_view what);  // little-endian
  std::string read_text(std::uint64_t count, std::string_view what);
  std::string read_line(std::string_view what);
  std::string read_utf8(std::uint64_t length);
  std::uint64_t read_memo_key_line(std::string_view what);

  // Values.
  PickleId add(PickleKind kind);
  PickleId add_sequence(PickleKind kind, std::vector<PickleId> items);
  PickleId make_text(PickleKind kind, std::string text);
  PickleId make_reference(PickleKind kind, PickleId argument, std::string callee = {});
  PickleId make_int(std::int64_t value);
  PickleId make_bool(bool value);
  PickleId make_float(double value);
  PickleId make_decimal(const std::string& line, std::string_view opcode);
  PickleId make_long(std::uint64_t length);
  PickleValue& at(PickleId id) { return pickle_.values[id]; }
  void charge_copy(std::size_t count);

  // The stack, its marks and the memo.
  void push(PickleId id);
  std::size_t frame_base() const { return marks_.empty() ? 0 : marks_.back(); }
  PickleId& top();
  PickleId pop();
  std::vector<PickleId> pop_to_mark();
  void push_tuple_of(std::size_t count);
  PickleValue& top_of_kind(PickleKind kind, std::string_view opcode);
  void append_items(PickleKind kind, std::vector<PickleId> items, std::string_view opcode);
  void set_items(std::vector<PickleId> items);
  void memo_put(std::uint64_t key);
  void memo_get(std::uint64_t key);

  // Globals and calls.
  PickleId make_global(const std::string& module, const std::string& name);
  std::string global_name(PickleId callee, std::string_view opcode);
  PickleId make_call(PickleId callee, PickleId arguments, std::string_view opcode);
  PickleId make_set(const std::vector<PickleId>& args, const std::string& name);
  PickleId make_encoded_bytes(const std::vector<PickleId>& args);

  void execute(std::uint8_t opcode);

  PickleInput& input_;
  std::string_view where_;
  const PickleLimits& limits_;
  Pickle pickle_;
  std::vector<PickleId> stack_;
  std::vector<std::size_t> marks_;  // stack sizes at each MARK
  std::unordered_map<std::uint64_t, PickleId> memo_;
  std::uint64_t opcode_offset_ = 0;
  std::size_t copied_ = 0;
};

}  // namespace parity::importers
