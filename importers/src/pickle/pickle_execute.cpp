// The pickle machine's opcodes, one case each.
#include <bit>

#include "parity/core/error.hpp"
#include "pickle/pickle_machine.hpp"
#include "pickle/pickle_opcodes.hpp"
#include "pickle/pickle_text.hpp"

namespace parity::importers {

void PickleMachine::push_tuple_of(std::size_t count) {
  std::vector<PickleId> items(count);
  for (std::size_t i = count; i-- > 0;) items[i] = pop();
  push(add_sequence(PickleKind::kTuple, std::move(items)));
}

// One case per opcode: a switch as long as the protocol, kept whole so each
// opcode reads beside its neighbours.
void PickleMachine::execute(std::uint8_t opcode) {
  switch (opcode) {
    case pickle_op::kProto: {
      const auto version = read_uint(1, "the protocol version");
      if (version > pickle_op::kHighestProtocol)
        fail("pickle protocol " + std::to_string(version) +
             " is newer than 5, the newest Parity reads");
      return;
    }
    case pickle_op::kFrame: {
      // Frames only group opcodes for buffered reading; the length must fit.
      const auto length = read_uint(8, "a frame length");
      if (length > input_.remaining())
        fail("the pickle ends at offset " + std::to_string(input_.position() + input_.remaining()) +
                 ", inside a frame of " + std::to_string(length) + " bytes",
             kPickleTruncatedHint);
      return;
    }
    case pickle_op::kMark:
      if (marks_.size() >= limits_.max_stack)
        fail("the pickle nests more marks than the stack limit");
      marks_.push_back(stack_.size());
      return;
    case pickle_op::kPop:
      // Python's POP discards the topmost mark when no value is above it.
      if (stack_.size() > frame_base()) {
        stack_.pop_back();
      } else if (!marks_.empty()) {
        marks_.pop_back();
      } else {
        fail("stack underflow: POP on an empty stack");
      }
      return;
    case pickle_op::kPopMark:
      pop_to_mark();
      return;
    case pickle_op::kDup:
      push(top());
      return;

    case pickle_op::kNone:
      push(add(PickleKind::kNone));
      return;
    case pickle_op::kNewTrue:
      push(make_bool(true));
      return;
    case pickle_op::kNewFalse:
      push(make_bool(false));
      return;
    case pickle_op::kInt: {
      // Protocol 0 writes booleans as INT 00 and 01.
      const std::string line = read_line("an INT argument");
      push(line == "00" || line == "01" ? make_bool(line == "01") : make_decimal(line, "INT"));
      return;
    }
    case pickle_op::kLong:
      push(make_decimal(read_line("a LONG argument"), "LONG"));
      return;
    case pickle_op::kBinInt:
      push(make_int(static_cast<std::int32_t>(read_uint(4, "a 4-byte integer"))));
      return;
    case pickle_op::kBinInt1:
      push(make_int(static_cast<std::int64_t>(read_uint(1, "a 1-byte integer"))));
      return;
    case pickle_op::kBinInt2:
      push(make_int(static_cast<std::int64_t>(read_uint(2, "a 2-byte integer"))));
      return;
    case pickle_op::kLong1:
      push(make_long(read_uint(1, "a long's length")));
      return;
    case pickle_op::kLong4: {
      const auto length = static_cast<std::int32_t>(read_uint(4, "a long's length"));
      if (length < 0) fail("LONG4 has a negative length");
      push(make_long(static_cast<std::uint64_t>(length)));
      return;
    }
    case pickle_op::kFloat: {
      const std::string line = read_line("a FLOAT argument");
      const auto value = parse_pickle_float(line);
      if (!value) fail("FLOAT '" + printable(line) + "' is not a number");
      push(make_float(*value));
      return;
    }
    case pickle_op::kBinFloat: {
      // The only big-endian field of the format.
      const auto data = read(8, "a float");
      std::uint64_t bits = 0;
      for (const std::byte b : data) bits = (bits << 8) | std::to_integer<std::uint64_t>(b);
      push(make_float(std::bit_cast<double>(bits)));
      return;
    }

    case pickle_op::kString: {
      const std::string line = read_line("a STRING argument");
      const auto bytes = decode_pickle_string_literal(line);
      if (!bytes) fail("STRING '" + printable(line) + "' is not a quoted string");
      push(make_text(PickleKind::kStr, python2_str_to_utf8(*bytes)));
      return;
    }
    case pickle_op::kBinString: {
      const auto length = static_cast<std::int32_t>(read_uint(4, "a string's length"));
      if (length < 0) fail("BINSTRING has a negative length");
      push(make_text(PickleKind::kStr, python2_str_to_utf8(read_text(
                                           static_cast<std::uint64_t>(length), "a string"))));
      return;
    }
    case pickle_op::kShortBinString:
      push(make_text(PickleKind::kStr, python2_str_to_utf8(read_text(
                                           read_uint(1, "a string's length"), "a string"))));
      return;
    case pickle_op::kUnicode: {
      const std::string line = read_line("a UNICODE argument");
      auto text = decode_raw_unicode_escape(line);
      if (!text) fail("UNICODE '" + printable(line) + "' has a malformed escape");
      push(make_text(PickleKind::kStr, std::move(*text)));
      return;
    }
    case pickle_op::kShortBinUnicode:
      push(make_text(PickleKind::kStr, read_utf8(read_uint(1, "a str's length"))));
      return;
    case pickle_op::kBinUnicode:
      push(make_text(PickleKind::kStr, read_utf8(read_uint(4, "a str's length"))));
      return;
    case pickle_op::kBinUnicode8:
      push(make_text(PickleKind::kStr, read_utf8(read_uint(8, "a str's length"))));
      return;
    case pickle_op::kShortBinBytes:
      push(make_text(PickleKind::kBytes,
                     read_text(read_uint(1, "a bytes length"), "a bytes value")));
      return;
    case pickle_op::kBinBytes:
      push(make_text(PickleKind::kBytes,
                     read_text(read_uint(4, "a bytes length"), "a bytes value")));
      return;
    case pickle_op::kBinBytes8:
    case pickle_op::kByteArray8:
      push(make_text(PickleKind::kBytes,
                     read_text(read_uint(8, "a bytes length"), "a bytes value")));
      return;

    case pickle_op::kEmptyTuple:
      push(add(PickleKind::kTuple));
      return;
    case pickle_op::kTuple1:
      push_tuple_of(1);
      return;
    case pickle_op::kTuple2:
      push_tuple_of(2);
      return;
    case pickle_op::kTuple3:
      push_tuple_of(3);
      return;
    case pickle_op::kTuple:
      push(add_sequence(PickleKind::kTuple, pop_to_mark()));
      return;
    case pickle_op::kEmptyList:
      push(add(PickleKind::kList));
      return;
    case pickle_op::kList:
      push(add_sequence(PickleKind::kList, pop_to_mark()));
      return;
    case pickle_op::kAppend: {
      const PickleId item = pop();
      top_of_kind(PickleKind::kList, "APPEND").items.push_back(item);
      return;
    }
    case pickle_op::kAppends:
      append_items(PickleKind::kList, pop_to_mark(), "APPENDS");
      return;
    case pickle_op::kEmptyDict:
      push(add(PickleKind::kDict));
      return;
    case pickle_op::kDict: {
      const PickleId dict = add(PickleKind::kDict);
      // DICT builds a new dict from the marked items: push it, then fill it.
      std::vector<PickleId> items = pop_to_mark();
      push(dict);
      set_items(std::move(items));
      return;
    }
    case pickle_op::kSetItem: {
      const PickleId value = pop();
      const PickleId key = pop();
      top_of_kind(PickleKind::kDict, "SETITEM").entries.emplace_back(key, value);
      return;
    }
    case pickle_op::kSetItems:
      set_items(pop_to_mark());
      return;
    case pickle_op::kEmptySet:
      push(add(PickleKind::kSet));
      return;
    case pickle_op::kAddItems:
      append_items(PickleKind::kSet, pop_to_mark(), "ADDITEMS");
      return;
    case pickle_op::kFrozenSet:
      push(add_sequence(PickleKind::kSet, pop_to_mark()));
      return;

    case pickle_op::kPut:
      memo_put(read_memo_key_line("a PUT key"));
      return;
    case pickle_op::kBinPut:
      memo_put(read_uint(1, "a memo key"));
      return;
    case pickle_op::kLongBinPut:
      memo_put(read_uint(4, "a memo key"));
      return;
    case pickle_op::kMemoize:
      memo_put(memo_.size());
      return;
    case pickle_op::kGet:
      memo_get(read_memo_key_line("a GET key"));
      return;
    case pickle_op::kBinGet:
      memo_get(read_uint(1, "a memo key"));
      return;
    case pickle_op::kLongBinGet:
      memo_get(read_uint(4, "a memo key"));
      return;

    case pickle_op::kGlobal: {
      const std::string module = read_line("a GLOBAL module name");
      const std::string name = read_line("a GLOBAL name");
      push(make_global(module, name));
      return;
    }
    case pickle_op::kStackGlobal: {
      const PickleId name = pop();
      const PickleId module = pop();
      if (at(name).kind != PickleKind::kStr || at(module).kind != PickleKind::kStr)
        fail("STACK_GLOBAL needs two str values");
      push(make_global(at(module).text, at(name).text));
      return;
    }
    case pickle_op::kReduce: {
      const PickleId arguments = pop();
      const PickleId callee = pop();
      push(make_call(callee, arguments, "REDUCE"));
      return;
    }
    case pickle_op::kNewObj: {
      const PickleId arguments = pop();
      const PickleId callee = pop();
      push(make_call(callee, arguments, "NEWOBJ"));
      return;
    }
    case pickle_op::kInst: {
      const std::string module = read_line("an INST module name");
      const std::string name = read_line("an INST name");
      const PickleId arguments = add_sequence(PickleKind::kTuple, pop_to_mark());
      push(make_call(make_global(module, name), arguments, "INST"));
      return;
    }
    case pickle_op::kObj: {
      std::vector<PickleId> items = pop_to_mark();
      if (items.empty()) fail("OBJ has no class to call");
      const PickleId callee = items.front();
      items.erase(items.begin());
      push(make_call(callee, add_sequence(PickleKind::kTuple, std::move(items)), "OBJ"));
      return;
    }
    case pickle_op::kBuild: {
      const PickleId state = pop();
      PickleValue& target = at(top());
      if (target.kind != PickleKind::kCall && target.kind != PickleKind::kDict)
        fail("BUILD sets the state of a " + std::string(pickle_kind_name(target.kind)) +
             "; only objects and OrderedDicts have one");
      target.state = state;
      return;
    }
    case pickle_op::kPersId: {
      const PickleId id =
          make_text(PickleKind::kStr, python2_str_to_utf8(read_line("a PERSID argument")));
      push(make_reference(PickleKind::kPersistentId, id));
      return;
    }
    case pickle_op::kBinPersId: {
      const PickleId id = pop();
      push(make_reference(PickleKind::kPersistentId, id));
      return;
    }

    case pickle_op::kExt1:
    case pickle_op::kExt2:
    case pickle_op::kExt4:
      fail("opcode " + hex_byte(opcode) +
           " (EXT1/EXT2/EXT4) names a global through Python's extension registry, which "
           "PyTorch checkpoints never use");
    case pickle_op::kNewObjEx:
      fail(
          "opcode NEWOBJ_EX (construction with keyword arguments) is not used by PyTorch "
          "checkpoints and is not supported");
    case pickle_op::kNextBuffer:
    case pickle_op::kReadOnlyBuffer:
      fail("opcode " + hex_byte(opcode) +
           " (NEXT_BUFFER/READONLY_BUFFER) refers to an out-of-band buffer, which a file "
           "cannot hold");
    default:
      fail("unknown pickle opcode " + hex_byte(opcode));
  }
}

}  // namespace parity::importers
