// The small parts of pickle.hpp: kind names and the in-memory input. The
// pickle machine is in pickle_machine.cpp, the allow-list in
// pickle_allow_list.cpp.
#include "parity/importers/pickle.hpp"

namespace parity::importers {

std::string_view pickle_kind_name(PickleKind kind) {
  switch (kind) {
    case PickleKind::kNone:
      return "None";
    case PickleKind::kBool:
      return "bool";
    case PickleKind::kInt:
      return "int";
    case PickleKind::kLargeInt:
      return "int beyond int64";
    case PickleKind::kFloat:
      return "float";
    case PickleKind::kStr:
      return "str";
    case PickleKind::kBytes:
      return "bytes";
    case PickleKind::kTuple:
      return "tuple";
    case PickleKind::kList:
      return "list";
    case PickleKind::kDict:
      return "dict";
    case PickleKind::kSet:
      return "set";
    case PickleKind::kGlobal:
      return "global";
    case PickleKind::kCall:
      return "call";
    case PickleKind::kPersistentId:
      return "persistent id";
  }
  return "unknown";
}

std::span<const std::byte> PickleBytesInput::take(std::size_t count) {
  const auto bytes = bytes_.subspan(next_, count);
  next_ += count;
  return bytes;
}

}  // namespace parity::importers
