// Fuzzes the zip reader and the .npz reader on top of it: any input either
// opens and reads consistently or is refused with parity::Error. Every
// member is read whole and by prefix through ZipArchive first, so that
// archives of members other than .npy still exercise the zip reader.
#include "fuzz_input.hpp"
#include "parity/core/error.hpp"
#include "parity/importers/numpy.hpp"
#include "parity/importers/zip_archive.hpp"

namespace {

constexpr std::uint64_t kMemberLimit = 1 << 20;

void read_every_member(const parity::importers::ZipArchive& archive) {
  for (const auto& member : archive.members()) {
    try {
      archive.read_prefix(member, 64);
      if (archive.read_all(member, kMemberLimit).size() != member.uncompressed_size) std::abort();
    } catch (const parity::Error&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = parity::fuzz::write_input(data, size, ".npz");
  try {
    read_every_member(parity::importers::ZipArchive::open(path));
    parity::fuzz::read_every_tensor(*parity::importers::open_npz(path));
  } catch (const parity::Error&) {
  }
  return 0;
}
