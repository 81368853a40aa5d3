// Fuzzes the PyTorch checkpoint reader, zip and legacy: any input either
// opens and reads consistently or is refused with parity::Error.
#include "fuzz_input.hpp"
#include "parity/core/error.hpp"
#include "parity/importers/torch_checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = parity::fuzz::write_input(data, size, ".pth");
  try {
    parity::fuzz::read_every_tensor(*parity::importers::open_torch_checkpoint(path));
  } catch (const parity::Error&) {
  }
  return 0;
}
