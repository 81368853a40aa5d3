// Damaged and hostile zip files are refused with a parity::Error naming the
// file (and the member): truncation, encryption, several disks, unknown
// methods, duplicate names, lying or overlapping sizes, CRC mismatches, and
// zip bombs, which are stopped before they cost time or memory.
#include <catch2/catch.hpp>
#include <chrono>

#include "../safetensors_fixture.hpp"
#include "expect_error.hpp"
#include "numpy_fixture.hpp"
#include "parity/importers/numpy.hpp"
#include "parity/importers/zip_archive.hpp"
#include "temp_dir.hpp"

using parity::importers::ZipArchive;
using parity::test::expect_error;
using parity::test::get_le;
using parity::test::set_le;
using parity::test::zip_layout;

namespace {

constexpr std::uint64_t kLimit = 1 << 20;

// Offsets within local (L) and central (C) headers.
constexpr std::size_t kLocalFlags = 6, kLocalMethod = 8, kLocalCompressed = 18,
                      kLocalUncompressed = 22;
constexpr std::size_t kCentralFlags = 8, kCentralMethod = 10, kCentralCrc = 16,
                      kCentralCompressed = 20, kCentralUncompressed = 24, kCentralDisk = 34;

// plain.zip without its comment (so zip_layout() applies), patched.
std::filesystem::path patched_plain(const TempDir& dir,
                                    const std::function<void(std::string&)>& patch) {
  std::string bytes = parity::test::read_bytes(parity::test::numpy_fixtures() / "plain.zip");
  const std::string comment = "a comment with PK\x05\x06 inside";
  REQUIRE(bytes.ends_with(comment));
  bytes.resize(bytes.size() - comment.size());
  set_le(bytes, bytes.size() - 2, 2, 0);
  patch(bytes);
  const auto path = dir / "patched.zip";
  parity::test::write_bytes(path, bytes);
  return path;
}

void read_everything(const std::filesystem::path& path) {
  const auto archive = ZipArchive::open(path);
  for (const auto& member : archive.members()) archive.read_all(member, kLimit);
}

}  // namespace

TEST_CASE("the comment-free copy of plain.zip used below is itself valid", "[unit]") {
  TempDir dir;
  read_everything(patched_plain(dir, [](std::string&) {}));
}

TEST_CASE("files that are not zip archives are refused", "[unit]") {
  TempDir dir;
  parity::test::write_bytes(dir / "short.zip", "PK\x05\x06");
  expect_error([&] { ZipArchive::open(dir / "short.zip"); }, "too short to be a zip archive",
               dir / "short.zip");
  parity::test::write_bytes(dir / "text.zip", std::string(5000, 'z'));
  expect_error([&] { ZipArchive::open(dir / "text.zip"); }, "no end-of-central-directory record",
               dir / "text.zip");
  expect_error([&] { ZipArchive::open(dir / "missing.zip"); }, "cannot open zip file",
               dir / "missing.zip");
}

TEST_CASE("every truncation of an archive is refused cleanly", "[unit]") {
  const std::string whole = parity::test::read_bytes(parity::test::numpy_fixtures() / "zip64.npz");
  TempDir dir;
  const auto path = dir / "cut.npz";
  for (std::size_t size = 0; size < whole.size(); ++size) {
    // A new file each time: rewriting one in place makes ext4 flush it to disk.
    std::filesystem::remove(path);
    parity::test::write_bytes(path, whole.substr(0, size));
    expect_error([&] { parity::importers::open_npz(path); }, "", path);
  }
}

TEST_CASE("encrypted members are refused, naming them", "[unit]") {
  TempDir dir;
  const auto path = patched_plain(dir, [](std::string& bytes) {
    const auto layout = zip_layout(bytes);
    set_le(bytes, layout.central_headers[1] + kCentralFlags, 2, 1);
    set_le(bytes, layout.local_headers[1] + kLocalFlags, 2, 1);
  });
  expect_error([&] { ZipArchive::open(path); }, "the member is encrypted", path,
               "member 'deflated.bin'");
}

TEST_CASE("archives spanning several disks are refused", "[unit]") {
  TempDir dir;
  const auto end_disk = patched_plain(
      dir, [](std::string& bytes) { set_le(bytes, zip_layout(bytes).end_record + 4, 2, 1); });
  expect_error([&] { ZipArchive::open(end_disk); }, "spans several disks", end_disk);
  const auto member_disk = patched_plain(dir, [](std::string& bytes) {
    set_le(bytes, zip_layout(bytes).central_headers[2] + kCentralDisk, 2, 3);
  });
  expect_error([&] { ZipArchive::open(member_disk); }, "spans several disks", member_disk,
               "member 'empty.bin'");
}

TEST_CASE("an unknown compression method is refused when the member is read", "[unit]") {
  TempDir dir;
  const auto path = patched_plain(dir, [](std::string& bytes) {
    const auto layout = zip_layout(bytes);
    set_le(bytes, layout.central_headers[1] + kCentralMethod, 2, 12);  // bzip2
    set_le(bytes, layout.local_headers[1] + kLocalMethod, 2, 12);
  });
  const auto archive = ZipArchive::open(path);
  const auto& member = *archive.find("deflated.bin");
  CHECK(member.method == 12);
  expect_error([&] { archive.read_all(member, kLimit); }, "compressed with method 12", path,
               "member 'deflated.bin'");
  expect_error([&] { archive.read_prefix(member, 10); }, "compressed with method 12", path,
               "member 'deflated.bin'");
  CHECK(archive.read_all(*archive.find("stored.bin"), kLimit).size() == 60);
}

TEST_CASE("duplicate member names are refused", "[unit]") {
  const auto path = parity::test::numpy_fixtures() / "duplicate.zip";
  expect_error([&] { ZipArchive::open(path); }, "two members are named 'same.bin'", path,
               "member 'same.bin'");
}

TEST_CASE("a member running past the central directory or the file is refused", "[unit]") {
  TempDir dir;
  const auto path = patched_plain(dir, [](std::string& bytes) {
    const auto layout = zip_layout(bytes);
    const std::size_t last = layout.central_headers.back();
    set_le(bytes, last + kCentralCompressed, 4, 5000);
  });
  expect_error([&] { ZipArchive::open(path); }, "runs past the central directory", path,
               "member 'dir/nested.txt'");
  const auto offset = patched_plain(dir, [](std::string& bytes) {
    set_le(bytes, zip_layout(bytes).central_headers[0] + 42, 4, 0x7fffffff);
  });
  expect_error([&] { ZipArchive::open(offset); }, "is not before the central directory", offset,
               "member 'stored.bin'");
  const auto directory = patched_plain(dir, [](std::string& bytes) {
    set_le(bytes, zip_layout(bytes).end_record + 12, 4, 0x10000);
  });
  expect_error([&] { ZipArchive::open(directory); }, "runs past its end record", directory);
}

TEST_CASE("overlapping members are refused", "[unit]") {
  TempDir dir;
  // Stretch 'stored.bin' over the next member's local header, in both its
  // headers, so that only the overlap is wrong.
  const auto path = patched_plain(dir, [](std::string& bytes) {
    const auto layout = zip_layout(bytes);
    for (const std::size_t field : {kCentralCompressed, kCentralUncompressed})
      set_le(bytes, layout.central_headers[0] + field, 4, 100);
    for (const std::size_t field : {kLocalCompressed, kLocalUncompressed})
      set_le(bytes, layout.local_headers[0] + field, 4, 100);
  });
  expect_error([&] { ZipArchive::open(path); }, "members 'stored.bin' and 'deflated.bin' overlap",
               path, "member 'deflated.bin'");
}

TEST_CASE("headers that lie about sizes are refused", "[unit]") {
  TempDir dir;
  const auto stored = patched_plain(dir, [](std::string& bytes) {
    set_le(bytes, zip_layout(bytes).central_headers[0] + kCentralUncompressed, 4, 61);
  });
  expect_error([&] { ZipArchive::open(stored); }, "compressed size 60 differs from its size 61",
               stored, "member 'stored.bin'");
  const auto local = patched_plain(dir, [](std::string& bytes) {
    set_le(bytes, zip_layout(bytes).local_headers[1] + kLocalUncompressed, 4, 10241);
  });
  expect_error([&] { ZipArchive::open(local); }, "local header's CRC-32 or sizes differ", local,
               "member 'deflated.bin'");
  const auto short_stream = parity::test::numpy_fixtures() / "short.zip";
  const auto archive = ZipArchive::open(short_stream);
  expect_error([&] { archive.read_all(archive.members().at(0), kLimit); },
               "inflates to 4000 bytes, not its declared 5000", short_stream, "member 'short.bin'");
}

TEST_CASE("a CRC-32 mismatch is refused when a member is read whole", "[unit]") {
  TempDir dir;
  for (const int member : {0, 1}) {
    const auto path = patched_plain(dir, [&](std::string& bytes) {
      const std::size_t field = zip_layout(bytes).central_headers[member] + kCentralCrc;
      set_le(bytes, field, 4, get_le(bytes, field, 4) ^ 1);
      set_le(bytes, zip_layout(bytes).local_headers[member] + 14, 4, get_le(bytes, field, 4));
    });
    const auto archive = ZipArchive::open(path);
    const auto& target = archive.members()[static_cast<std::size_t>(member)];
    expect_error([&] { archive.read_all(target, kLimit); }, "CRC-32 mismatch", path,
                 "member '" + target.name + "'");
  }
}

TEST_CASE("corrupt deflate data is refused", "[unit]") {
  TempDir dir;
  const auto path = patched_plain(dir, [](std::string& bytes) {
    const auto layout = zip_layout(bytes);
    const std::size_t data = layout.local_headers[1] + 30 + std::string("deflated.bin").size();
    bytes[data] = '\xff';  // a reserved block type
  });
  const auto archive = ZipArchive::open(path);
  expect_error([&] { archive.read_all(*archive.find("deflated.bin"), kLimit); },
               "the deflate data is corrupt", path, "member 'deflated.bin'");
}

TEST_CASE("zip bombs are stopped at once, without inflating them", "[unit]") {
  const auto bomb_path = parity::test::numpy_fixtures() / "bomb.zip";
  const auto started = std::chrono::steady_clock::now();
  // 64 KiB of deflate that inflates to 64 MiB, declaring 1000 bytes: stopped
  // one byte past the declared size.
  const auto bomb = ZipArchive::open(bomb_path);
  std::uint64_t delivered = 0;
  expect_error(
      [&] {
        bomb.read_chunks(bomb.members().at(0), kLimit,
                         [&](std::span<const std::byte> chunk) { delivered += chunk.size(); });
      },
      "inflates to more than its declared 1000 bytes", bomb_path, "member 'bomb.bin'");
  CHECK(delivered <= 1001);
  // The honest 64 MiB member, over a caller's 1 MiB limit: refused before inflating.
  const auto zeros_path = parity::test::numpy_fixtures() / "zeros.zip";
  const auto zeros = ZipArchive::open(zeros_path);
  expect_error([&] { zeros.read_all(zeros.members().at(0), kLimit); },
               "declares 67108864 bytes, more than the limit of 1048576", zeros_path,
               "member 'zeros.bin'");
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::milliseconds(500));
}

TEST_CASE("sizes beyond what deflate can produce are refused when opening", "[unit]") {
  TempDir dir;
  std::string bytes = parity::test::read_bytes(parity::test::numpy_fixtures() / "zeros.zip");
  const auto layout = zip_layout(bytes);
  // 64 KiB of deflate cannot hold 4 GiB: the ratio would be over 1032:1.
  set_le(bytes, layout.central_headers[0] + kCentralUncompressed, 4, 0xfffffff0);
  set_le(bytes, layout.local_headers[0] + kLocalUncompressed, 4, 0xfffffff0);
  const auto path = dir / "ratio.zip";
  parity::test::write_bytes(path, bytes);
  expect_error([&] { ZipArchive::open(path); }, "more than deflate can produce", path,
               "member 'zeros.bin'");
}
