// Fuzzes the MindSpore checkpoint reader: any input either opens and reads
// consistently or is refused with parity::Error.
#include "fuzz_input.hpp"
#include "parity/importers/mindspore_checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return parity::fuzz::fuzz_tensor_source(data, size, ".ckpt",
                                          parity::importers::open_mindspore_checkpoint);
}
