// ZipArchive on archives Python's zipfile wrote: stored and deflated
// members, data descriptors, ZIP64, comments; positioned and prefix reads.
#include "parity/importers/zip_archive.hpp"

#include <catch2/catch.hpp>

#include "../safetensors_fixture.hpp"
#include "expect_error.hpp"
#include "numpy_fixture.hpp"

using parity::importers::ZipArchive;
using parity::importers::ZipMember;

namespace {

constexpr std::uint64_t kLimit = 1 << 20;

std::string text_of(const std::vector<std::byte>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::string repeated_bytes_0_to_255(int times) {
  std::string out;
  for (int t = 0; t < times; ++t)
    for (int i = 0; i < 256; ++i) out.push_back(static_cast<char>(i));
  return out;
}

// The members numpy_peer.py writes into plain.zip and descriptors.zip.
void expect_python_members(const ZipArchive& archive) {
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"stored.bin",
       [] {
         std::string s;
         for (int i = 0; i < 3; ++i) s += "hello, stored world\n";
         return s;
       }()},
      {"deflated.bin", repeated_bytes_0_to_255(40)},
      {"empty.bin", ""},
      {"dir/nested.txt", "naïve ✓"}};
  REQUIRE(archive.members().size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto& [name, content] = expected[i];
    INFO(name);
    const ZipMember& member = archive.members()[i];
    CHECK(member.name == name);
    CHECK(archive.find(name) == &member);
    CHECK(member.uncompressed_size == content.size());
    CHECK(text_of(archive.read_all(member, kLimit)) == content);
  }
  CHECK(archive.find("missing") == nullptr);
}

}  // namespace

TEST_CASE("a zip written by Python lists and reads its members", "[e2e]") {
  const auto archive = ZipArchive::open(parity::test::numpy_fixtures() / "plain.zip");
  expect_python_members(archive);
  CHECK(archive.find("stored.bin")->is_stored());
  CHECK(archive.find("deflated.bin")->method == 8);
}

TEST_CASE("members followed by data descriptors read alike", "[e2e]") {
  expect_python_members(ZipArchive::open(parity::test::numpy_fixtures() / "descriptors.zip"));
}

TEST_CASE("read_stored reads any range of a stored member in place", "[unit]") {
  const auto archive = ZipArchive::open(parity::test::numpy_fixtures() / "plain.zip");
  const ZipMember& member = *archive.find("stored.bin");
  std::vector<std::byte> out(6);
  archive.read_stored(member, 7, out);
  CHECK(text_of(out) == "stored");
  archive.read_stored(member, member.uncompressed_size - 6, out);
  CHECK(text_of(out) == "world\n");
  parity::test::expect_error(
      [&] { archive.read_stored(member, member.uncompressed_size - 5, out); },
      "run past the member's 60 bytes", archive.path(), "member 'stored.bin'");
  parity::test::expect_error([&] { archive.read_stored(*archive.find("deflated.bin"), 0, out); },
                             "compressed, not stored", archive.path(), "member 'deflated.bin'");
}

TEST_CASE("read_prefix inflates only the start of a member", "[unit]") {
  const auto archive = ZipArchive::open(parity::test::numpy_fixtures() / "plain.zip");
  const auto prefix = archive.read_prefix(*archive.find("deflated.bin"), 300);
  CHECK(text_of(prefix) == repeated_bytes_0_to_255(2).substr(0, 300));
  CHECK(text_of(archive.read_prefix(*archive.find("stored.bin"), 5)) == "hello");
  CHECK(archive.read_prefix(*archive.find("empty.bin"), 5).empty());
  // A bomb's first bytes are fine: the prefix stops long before its lie shows.
  const auto bomb = ZipArchive::open(parity::test::numpy_fixtures() / "bomb.zip");
  CHECK(bomb.read_prefix(bomb.members().at(0), 100) == std::vector<std::byte>(100));
}

TEST_CASE("read_chunks hands over the member in order, in bounded chunks", "[unit]") {
  const auto archive = ZipArchive::open(parity::test::numpy_fixtures() / "zeros.zip");
  const ZipMember& member = archive.members().at(0);
  std::uint64_t total = 0;
  std::size_t largest = 0;
  bool all_zero = true;
  archive.read_chunks(member, std::uint64_t{1} << 30, [&](std::span<const std::byte> chunk) {
    total += chunk.size();
    largest = std::max(largest, chunk.size());
    for (const std::byte b : chunk) all_zero = all_zero && b == std::byte{0};
  });
  CHECK(total == (std::uint64_t{64} << 20));
  CHECK(largest <= 64 * 1024);
  CHECK(all_zero);
}

TEST_CASE("ZIP64 records and extra fields are read", "[e2e]") {
  // numpy_peer.py lowers zipfile's limits so that np.savez writes every
  // ZIP64 structure for small members.
  const auto path = parity::test::numpy_fixtures() / "zip64.npz";
  const std::string bytes = parity::test::read_bytes(path);
  REQUIRE(bytes.find("PK\x06\x06") != std::string::npos);  // the ZIP64 end record
  REQUIRE(bytes.find("PK\x06\x07") != std::string::npos);  // its locator
  const auto archive = ZipArchive::open(path);
  REQUIRE(archive.members().size() == 13);
  std::uint64_t previous_end = 0;
  for (const ZipMember& member : archive.members()) {
    INFO(member.name);
    CHECK(member.local_header_offset >= previous_end);
    CHECK(member.data_offset > member.local_header_offset);
    CHECK(archive.read_all(member, kLimit).size() == member.uncompressed_size);
    previous_end = member.data_offset + member.compressed_size;
  }
}
