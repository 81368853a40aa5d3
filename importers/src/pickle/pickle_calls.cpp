// Globals and calls in the pickle machine: a global is checked against the
// allow-list and kept as a name; a call of it (REDUCE, NEWOBJ, INST, OBJ)
// becomes a call node, or the container or bytes it would make.
#include "parity/core/error.hpp"
#include "pickle/pickle_machine.hpp"
#include "pickle/pickle_text.hpp"

namespace parity::importers {
namespace {

// Python 3 names the builtins module "builtins", Python 2 "__builtin__".
bool is_builtin(const std::string& global, const std::string& name) {
  return global == "builtins." + name || global == "__builtin__." + name;
}

}  // namespace

PickleId PickleMachine::make_global(const std::string& module, const std::string& name) {
  if (!is_allowed_pickle_global(module, name))
    fail("the pickle names the global '" + printable(module) + "." + printable(name) +
             "', which is not one a PyTorch checkpoint uses; Parity refused the file and ran "
             "nothing from it",
         "Parity reads tensors and plain containers only (docs/formats/pytorch.md lists the "
         "globals it accepts). The file may be malicious: open it only if you trust its "
         "source, or ask for one saved with torch.save(model.state_dict(), path)");
  return make_text(PickleKind::kGlobal, module + "." + name);
}

std::string PickleMachine::global_name(PickleId callee, std::string_view opcode) {
  const PickleValue& value = at(callee);
  if (value.kind != PickleKind::kGlobal)
    fail(std::string(opcode) + " calls a " + std::string(pickle_kind_name(value.kind)) +
         ", not a global");
  return value.text;
}

// What REDUCE, NEWOBJ, INST and OBJ make of `callee(*arguments)`. Containers
// that PyTorch pickles as calls become plain containers, so that later
// SETITEMS and APPENDS can fill them; every other call stays a call node.
PickleId PickleMachine::make_call(PickleId callee, PickleId arguments, std::string_view opcode) {
  const std::string name = global_name(callee, opcode);
  if (at(arguments).kind != PickleKind::kTuple)
    fail(std::string(opcode) + " passes a " + std::string(pickle_kind_name(at(arguments).kind)) +
         " to " + printable(name) + " as its arguments, not a tuple");
  const std::vector<PickleId> args = at(arguments).items;
  if (name == "collections.OrderedDict") {
    if (!args.empty()) fail("OrderedDict is called with arguments; PyTorch never does so");
    return add(PickleKind::kDict);
  }
  if (is_builtin(name, "set") || is_builtin(name, "frozenset")) return make_set(args, name);
  if (is_builtin(name, "bytes")) {
    if (!args.empty()) fail("bytes is called with arguments; pickles only do so for b''");
    return add(PickleKind::kBytes);
  }
  if (name == "_codecs.encode") return make_encoded_bytes(args);
  return make_reference(PickleKind::kCall, arguments, name);
}

PickleId PickleMachine::make_set(const std::vector<PickleId>& args, const std::string& name) {
  if (args.empty()) return add(PickleKind::kSet);
  const PickleValue& source = at(args[0]);
  const bool sequence = source.kind == PickleKind::kList || source.kind == PickleKind::kTuple ||
                        source.kind == PickleKind::kSet;
  if (args.size() != 1 || !sequence)
    fail(printable(name) + " is called with arguments other than one list");
  std::vector<PickleId> items = source.items;
  charge_copy(items.size());
  return add_sequence(PickleKind::kSet, std::move(items));
}

// _codecs.encode(text, "latin1"): how protocol 2 pickles a bytes object.
PickleId PickleMachine::make_encoded_bytes(const std::vector<PickleId>& args) {
  const bool text_args = args.size() == 2 && at(args[0]).kind == PickleKind::kStr &&
                         at(args[1]).kind == PickleKind::kStr;
  if (!text_args || (at(args[1]).text != "latin1" && at(args[1]).text != "latin-1"))
    fail("_codecs.encode is called with arguments other than (text, 'latin1')");
  auto bytes = utf8_to_latin1(at(args[0]).text);
  if (!bytes) fail("_codecs.encode is given text beyond Latin-1");
  charge_copy(bytes->size());
  return make_text(PickleKind::kBytes, std::move(*bytes));
}

}  // namespace parity::importers
