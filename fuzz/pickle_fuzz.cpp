// Fuzzes the safe pickle reader: any bytes either parse into a value tree
// whose every reference stays inside it, or are refused with parity::Error.
#include <cstdlib>

#include "parity/core/error.hpp"
#include "parity/importers/pickle.hpp"

namespace {

void check_references(const parity::importers::Pickle& pickle) {
  const std::size_t count = pickle.values.size();
  const auto check = [&](parity::importers::PickleId id) {
    if (id >= count) std::abort();
  };
  check(pickle.root);
  for (const auto& value : pickle.values) {
    for (const auto item : value.items) check(item);
    for (const auto& [key, item] : value.entries) check(key), check(item);
    if (value.kind == parity::importers::PickleKind::kCall ||
        value.kind == parity::importers::PickleKind::kPersistentId)
      check(value.argument);
    if (value.state) check(*value.state);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  parity::importers::PickleBytesInput input(
      std::as_bytes(std::span(reinterpret_cast<const char*>(data), size)));
  try {
    const auto pickle = parity::importers::read_pickle(input, "fuzz.pkl");
    if (pickle.end_offset > size) std::abort();
    check_references(pickle);
  } catch (const parity::Error&) {
  }
  return 0;
}
