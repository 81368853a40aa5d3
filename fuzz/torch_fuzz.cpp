// Fuzzes the PyTorch checkpoint reader, zip and legacy: any input either
// opens and reads consistently or is refused with parity::Error.
#include "fuzz_input.hpp"
#include "parity/importers/torch_checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return parity::fuzz::fuzz_tensor_source(data, size, ".pth",
                                          parity::importers::open_torch_checkpoint);
}
