// Fuzzes the MindSpore checkpoint reader: any input either opens and reads
// consistently or is refused with parity::Error.
#include "fuzz_input.hpp"
#include "parity/core/error.hpp"
#include "parity/importers/mindspore_checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = parity::fuzz::write_input(data, size, ".ckpt");
  try {
    parity::fuzz::read_every_tensor(*parity::importers::open_mindspore_checkpoint(path));
  } catch (const parity::Error&) {
  }
  return 0;
}
