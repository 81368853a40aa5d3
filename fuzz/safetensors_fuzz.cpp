// Fuzzes the safetensors reader: any input either opens and reads
// consistently or is refused with parity::Error.
#include "fuzz_input.hpp"
#include "parity/importers/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return parity::fuzz::fuzz_tensor_source(data, size, ".safetensors",
                                          parity::importers::open_safetensors_source);
}
