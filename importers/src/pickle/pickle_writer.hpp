// PickleWriter: emits a pickle (protocol 2) opcode by opcode, using only the
// opcodes that PyTorch's restricted unpickler (torch.load(weights_only=True),
// torch/_weights_only_unpickler.py) accepts: no memo, no framing, strings as
// BINUNICODE, integers as BININT1/BININT2/BININT/LONG1. The caller composes
// the value (torch_checkpoint_writer.cpp writes a state_dict with it).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace parity::importers {

class PickleWriter {
 public:
  PickleWriter();  // starts with PROTO 2

  PickleWriter& global(std::string_view module, std::string_view name);  // GLOBAL
  PickleWriter& text(std::string_view utf8);                             // BINUNICODE
  PickleWriter& integer(std::int64_t value);                             // shortest form
  PickleWriter& integers(std::span<const std::int64_t> values);          // a tuple of ints
  PickleWriter& mark();                                                  // MARK
  PickleWriter& tuple();              // TUPLE: the items since the mark
  PickleWriter& empty_tuple();        // EMPTY_TUPLE
  PickleWriter& reduce();             // REDUCE: callable(*args)
  PickleWriter& persistent_id();      // BINPERSID: the value on the stack
  PickleWriter& boolean(bool value);  // NEWTRUE / NEWFALSE
  PickleWriter& set_items();          // SETITEMS: key/value pairs since the mark
  // STOP, and the pickle's bytes.
  std::string finish();

 private:
  PickleWriter& op(std::uint8_t opcode);
  std::string bytes_;
};

}  // namespace parity::importers
