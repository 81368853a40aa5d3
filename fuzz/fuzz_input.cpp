#include "fuzz_input.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "parity/core/error.hpp"

namespace parity::fuzz {

std::filesystem::path write_input(const std::uint8_t* data, std::size_t size,
                                  std::string_view suffix) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("parity-fuzz-" + std::to_string(::getpid()) +
                                      std::string(suffix));
  // A fresh file each run: truncating one in place makes ext4 flush it to
  // disk on close, which slows fuzzing about tenfold.
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) std::abort();
  return path;
}

void read_every_tensor(const importers::TensorSource& source) {
  for (const importers::TensorEntry& entry : source.entries()) {
    try {
      const importers::NamedTensor tensor = source.read(entry.name);
      if (tensor.name != entry.name || tensor.dtype != entry.dtype ||
          tensor.shape != entry.shape || !tensor.is_consistent())
        std::abort();
    } catch (const Error&) {
      // A tensor whose bytes are bad is reported, not read: that is the contract.
    }
  }
}

int fuzz_tensor_source(const std::uint8_t* data, std::size_t size, std::string_view suffix,
                       SourceOpener open) {
  const std::filesystem::path path = write_input(data, size, suffix);
  try {
    read_every_tensor(*open(path));
  } catch (const Error&) {
  }
  return 0;
}

}  // namespace parity::fuzz
