// open_torch_checkpoint: the zip or the legacy format, told by the first bytes.
#include "parity/importers/torch_checkpoint.hpp"

#include <array>
#include <cstring>

#include "io/posix_file.hpp"
#include "parity/core/error.hpp"
#include "pytorch/torch_checkpoint_formats.hpp"

namespace parity::importers {
namespace {

// Very old PyTorch (before 0.1.10) saved tar archives: "ustar" at offset 257.
constexpr std::uint64_t kTarMagicOffset = 257;
constexpr std::string_view kTarMagic = "ustar";

bool has_bytes_at(int fd, const std::filesystem::path& path, std::uint64_t file_size,
                  std::uint64_t offset, std::string_view expected) {
  if (file_size < offset + expected.size()) return false;
  std::array<std::byte, 8> bytes{};
  const auto head = std::span(bytes).first(expected.size());
  read_exactly(fd, path, offset, head, "the file's first bytes");
  return std::memcmp(head.data(), expected.data(), expected.size()) == 0;
}

}  // namespace

std::unique_ptr<TensorSource> open_torch_checkpoint(const std::filesystem::path& path) {
  const OpenedFile file = open_for_reading(path, "PyTorch checkpoint");
  const int fd = file.fd.get();
  if (has_bytes_at(fd, path, file.size, 0, "PK")) return open_torch_zip_checkpoint(path);
  // A pickle of protocol 2 and later starts with PROTO (0x80); torch.save at
  // protocol 1 starts with the magic number as a decimal LONG.
  if (has_bytes_at(fd, path, file.size, 0, "\x80") || has_bytes_at(fd, path, file.size, 0, "L"))
    return open_torch_legacy_checkpoint(path);
  if (has_bytes_at(fd, path, file.size, kTarMagicOffset, kTarMagic))
    throw Error("a tar-format checkpoint (PyTorch before 0.1.10) is not supported", path.string(),
                "load it with an old PyTorch and save it again with torch.save");
  throw Error("not a PyTorch checkpoint: it starts with neither a zip header (PK) nor a pickle",
              path.string(),
              "torch.save writes one of those two; the file may be another format or damaged");
}

}  // namespace parity::importers
