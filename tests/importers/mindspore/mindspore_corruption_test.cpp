// Every kind of damaged, foreign or encrypted file is refused with a
// parity::Error naming the file, the tag (where one was read) and the byte
// offset; no truncation and no single changed byte crashes the reader or
// slips through a CRC trailer.
#include <catch2/catch.hpp>

#include "checkpoint_bytes.hpp"
#include "parity/core/error.hpp"
#include "parity/importers/mindspore_checkpoint.hpp"
#include "safetensors_fixture.hpp"
#include "temp_dir.hpp"

using parity::Error;
using parity::importers::NamedTensor;
using parity::importers::open_mindspore_checkpoint;
using parity::test::read_bytes;
using parity::test::write_bytes;
using parity::test::ckpt::bytes_field;
using parity::test::ckpt::expect_refused;
using parity::test::ckpt::fixture;
using parity::test::ckpt::read_all;
using parity::test::ckpt::tensor;
using parity::test::ckpt::value;
using parity::test::ckpt::varint;
using parity::test::ckpt::varint_field;

namespace {

const std::string kTwoFloats(8, '\0');

// Writes `bytes` to a file of `dir` and expects it refused.
void expect_bytes_refused(const TempDir& dir, const std::string& bytes, const std::string& what,
                          const std::string& where = {}) {
  const auto path = dir / "damaged.ckpt";
  write_bytes(path, bytes);
  expect_refused(path, what, where);
}

// Offsets at which a top-level record starts (and the file's end).
std::vector<std::size_t> record_boundaries(const std::string& bytes) {
  std::vector<std::size_t> boundaries;
  std::size_t at = 0;
  while (at < bytes.size() && bytes[at] == '\x0a') {
    boundaries.push_back(at);
    ++at;
    std::uint64_t length = 0;
    for (int shift = 0;; shift += 7) {
      const auto byte = static_cast<unsigned char>(bytes[at++]);
      length |= std::uint64_t{byte & 0x7fu} << shift;
      if (!(byte & 0x80)) break;
    }
    at += length;
  }
  boundaries.push_back(at);
  return boundaries;
}

}  // namespace

TEST_CASE("an empty file and foreign files are refused", "[unit]") {
  TempDir dir;
  expect_bytes_refused(dir, "", "the file is empty", "offset 0");
  expect_bytes_refused(dir, "hello world", "field 13 (varint) where a checkpoint holds only values",
                       "offset 0");
  // A safetensors file: an 8-byte header length, then JSON.
  expect_bytes_refused(dir, std::string("\x02\0\0\0\0\0\0\0{}", 10), "field number 0", "offset 0");
  // A field 1 that is a varint, not a value.
  expect_bytes_refused(dir, varint_field(1, 5), "field 1 (varint)", "offset 0");
  const std::string good = value("w", tensor({2}, "Float32", kTwoFloats));
  expect_bytes_refused(dir, good + bytes_field(2, "x"), "field 2 (length-delimited)",
                       "offset " + std::to_string(good.size()));
}

TEST_CASE("an encrypted checkpoint is refused with what to do about it", "[unit]") {
  TempDir dir;
  for (const auto& [marker, mode] :
       std::vector<std::pair<std::string, std::string>>{{"\xd8\x5e\x3a\x7f", "AES-GCM"},
                                                        {"\xd9\x5e\x3a\x7f", "AES-CBC"},
                                                        {"\xda\x5e\x3a\x7f", "SM4-CBC"}}) {
    INFO(mode);
    const auto path = dir / (mode + ".ckpt");
    write_bytes(path, marker + std::string(60, '\x42'));
    try {
      open_mindspore_checkpoint(path);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.what_failed() ==
            "encrypted MindSpore checkpoint: decrypt it with MindSpore's "
            "load_checkpoint(dec_key=...) and save it unencrypted");
      CHECK(e.where() == path.string() + ", offset 0");
      CHECK_THAT(e.hint(), Catch::Contains(mode));
    }
  }
  expect_refused(fixture("encrypted_aes_gcm.ckpt"), "encrypted MindSpore checkpoint", "offset 0");
}

TEST_CASE("a CRC trailer is checked: every changed byte is caught", "[unit]") {
  TempDir dir;
  const std::string good = read_bytes(fixture("resnet_small_crc.ckpt"));
  const std::size_t trailer = good.size() - 17;
  REQUIRE(good.substr(trailer, 7) == "crc_num");

  std::string body_flip = good;
  body_flip[100] ^= 0x01;  // inside conv1.weight's content: still a valid protobuf
  expect_bytes_refused(dir, body_flip, "CRC-32 mismatch", "offset " + std::to_string(trailer));

  std::string value_flip = good;
  value_flip[good.size() - 1] ^= 0x01;
  expect_bytes_refused(dir, value_flip, "CRC-32 mismatch", "offset " + std::to_string(trailer));

  std::string wide = good;
  wide[trailer + 7] = 1;  // a value beyond 32 bits, which no CRC-32 equals
  expect_bytes_refused(dir, wide, "CRC-32 mismatch");

  for (std::size_t at = 0; at < good.size(); ++at) {
    std::string changed = good;
    changed[at] = static_cast<char>(changed[at] ^ 0x20);
    const auto path = dir / "changed.ckpt";
    write_bytes(path, changed);
    INFO("byte " << at);
    CHECK_THROWS_AS(read_all(*open_mindspore_checkpoint(path)), Error);
  }
}

TEST_CASE("a cut CRC trailer is refused, a file cut before it reads without it", "[unit]") {
  TempDir dir;
  const std::string good = read_bytes(fixture("resnet_small_crc.ckpt"));
  const std::size_t trailer = good.size() - 17;
  expect_bytes_refused(dir, good.substr(0, good.size() - 1), "the CRC trailer has 16 bytes, not 17",
                       "offset " + std::to_string(trailer));
  expect_bytes_refused(dir, good.substr(0, trailer + 3), "the file ends inside its CRC trailer",
                       "offset " + std::to_string(trailer));
  expect_bytes_refused(dir, good + "x", "the CRC trailer has 18 bytes");
  write_bytes(dir / "plain.ckpt", good.substr(0, trailer));
  CHECK(open_mindspore_checkpoint(dir / "plain.ckpt")->entries().size() == 16);
}

TEST_CASE("a file cut at any byte is refused unless cut between records", "[unit]") {
  TempDir dir;
  for (const std::string name :
       {"dtypes.ckpt", "resnet_small_crc.ckpt", "legacy_and_extras.ckpt"}) {
    const std::string whole = read_bytes(fixture(name));
    const auto full = open_mindspore_checkpoint(fixture(name));
    const auto boundaries = record_boundaries(whole);
    for (std::size_t cut = 0; cut < whole.size(); ++cut) {
      INFO(name << " cut at " << cut);
      const auto path = dir / "cut.ckpt";
      write_bytes(path, whole.substr(0, cut));
      const bool at_boundary =
          cut > 0 && std::find(boundaries.begin(), boundaries.end(), cut) != boundaries.end();
      try {
        const auto source = open_mindspore_checkpoint(path);
        // legacy_and_extras' split tensor is incomplete when cut between its slices.
        CHECK(at_boundary);
        REQUIRE(source->entries().size() <= full->entries().size());
        for (const auto& entry : source->entries()) {
          const NamedTensor tensor = source->read(entry.name);
          CHECK(tensor.data == full->read(entry.name).data);
          CHECK(tensor.shape == full->find(entry.name)->shape);
        }
      } catch (const Error& e) {
        CHECK_THAT(e.where(), Catch::Contains(path.string()));
        CHECK_THAT(e.where(), Catch::Contains("offset"));
      }
    }
  }
}

TEST_CASE("bad varints are refused with their offset", "[unit]") {
  TempDir dir;
  expect_bytes_refused(dir, "\x0a" + std::string(10, '\xff') + "\x01", "longer than 10 bytes",
                       "offset 1");
  expect_bytes_refused(dir, "\x0a" + std::string(9, '\xff') + "\x02", "overflows 64 bits",
                       "offset 1");
  // The largest 10-byte varint is fine as a varint (and then far too long a length).
  expect_bytes_refused(dir, "\x0a" + std::string(9, '\xff') + "\x01", "runs past the end",
                       "offset 11");
  expect_bytes_refused(dir, "\x0a\xff", "a varint runs past the end", "offset 1");
  expect_bytes_refused(dir, "\x80", "a varint runs past the end", "offset 0");
  // A key of field number 0, and of wire type 7.
  expect_bytes_refused(dir, bytes_field(1, std::string("\x00", 1)), "field number 0", "offset 2");
  expect_bytes_refused(dir, bytes_field(1, "\x0f"), "wire type 7, which does not exist",
                       "offset 2");
}

TEST_CASE("lengths past the end of the file or of their message are refused", "[unit]") {
  TempDir dir;
  expect_bytes_refused(dir, "\x0a\x64" + std::string(10, '\x0a'), "runs past the end", "offset 2");
  // The tensor field claims 50 bytes inside a value of 12.
  const std::string inner = bytes_field(1, "w") + "\x12\x32" + std::string(7, '\0');
  expect_bytes_refused(dir, bytes_field(1, inner), "of 50 bytes runs past the end of its message",
                       "tag 'w'");
  // tensor_content claims more than the tensor holds.
  const std::string cut_content = std::string("\x12\x07") + "Float32" + "\x1a\x09" + kTwoFloats;
  expect_bytes_refused(dir, value("w", cut_content), "runs past the end", "tag 'w'");
}

TEST_CASE("fields of the wrong wire type are refused", "[unit]") {
  TempDir dir;
  const std::string content = bytes_field(2, "Float32") + bytes_field(3, kTwoFloats);
  expect_bytes_refused(dir, bytes_field(1, varint_field(1, 3) + bytes_field(2, content)),
                       "the tag (field 1) has wire type varint, not length-delimited", "offset 2");
  expect_bytes_refused(dir, bytes_field(1, bytes_field(1, "w") + varint_field(2, 1)),
                       "the tensor (field 2) has wire type varint", "tag 'w'");
  expect_bytes_refused(dir, value("w", varint_field(2, 1) + bytes_field(3, kTwoFloats)),
                       "tensor_type (field 2) has wire type varint", "tag 'w'");
  expect_bytes_refused(dir, value("w", bytes_field(2, "Float32") + "\x1d" + "abcd"),
                       "tensor_content (field 3) has wire type fixed32", "tag 'w'");
  expect_bytes_refused(dir, value("w", "\x09" + std::string(8, '\0') + content),
                       "dims (field 1) has wire type fixed64", "tag 'w'");
  expect_bytes_refused(dir, bytes_field(1, bytes_field(1, "w") + "\x23"), "group", "tag 'w'");
}

TEST_CASE("missing, repeated and contradictory fields are refused", "[unit]") {
  TempDir dir;
  const std::string floats = tensor({2}, "Float32", kTwoFloats);
  expect_bytes_refused(dir, bytes_field(1, bytes_field(2, floats)), "the value has no tag",
                       "offset 2");
  expect_bytes_refused(dir, bytes_field(1, bytes_field(1, "w")),
                       "neither a tensor nor a map tensor", "tag 'w'");
  expect_bytes_refused(dir, value("w", bytes_field(3, kTwoFloats)), "no tensor_type", "tag 'w'");
  expect_bytes_refused(dir, value("w", bytes_field(2, "Float32")), "no tensor_content", "tag 'w'");
  expect_bytes_refused(dir, value("w", bytes_field(2, "Float32") + floats),
                       "tensor_type appears twice", "tag 'w'");
  expect_bytes_refused(
      dir, bytes_field(1, bytes_field(1, "w") + bytes_field(2, floats) + bytes_field(3, "")),
      "the tensor or map tensor appears twice", "tag 'w'");
  expect_bytes_refused(
      dir, bytes_field(1, bytes_field(1, "w") + bytes_field(1, "v") + bytes_field(2, floats)),
      "the tag appears twice", "tag 'w'");
}

TEST_CASE("negative, oversized and too many dims are refused", "[unit]") {
  TempDir dir;
  // value: key@0 len@1 | tag key@2 len@3 "w"@4 | tensor key@5 len@6 | dims key@7
  expect_bytes_refused(dir, value("w", tensor({-1}, "Float32", kTwoFloats)),
                       "dimension -1 is negative", "tag 'w', offset 7");
  const std::string packed_negative = bytes_field(1, varint(static_cast<std::uint64_t>(-3)));
  expect_bytes_refused(
      dir, value("w", packed_negative + bytes_field(2, "Float32") + bytes_field(3, kTwoFloats)),
      "dimension -3 is negative", "tag 'w'");
  const std::int64_t huge = std::int64_t{1} << 40;
  expect_bytes_refused(dir, value("w", tensor({huge, huge}, "Float32", kTwoFloats)),
                       "hold more bytes than int64 counts", "tag 'w'");
  expect_bytes_refused(dir, value("w", tensor(std::vector<std::int64_t>(65, 1), "Float32", "")),
                       "more than 64 dimensions", "tag 'w'");
}

TEST_CASE("content that disagrees with dims and type is refused", "[unit]") {
  TempDir dir;
  const auto first = value("w", tensor({2, 3}, "Float32", std::string(20, '\0')));
  // w: key@0 len@1 | tag@2..4 | tensor key@5 len@6 | dims@7..10 | type@11..19 | content key@20
  expect_bytes_refused(dir, first, "Float32 [2, 3] needs 24 bytes, but tensor_content holds 20",
                       "tag 'w', offset 22");
  const auto slice = value("w", tensor({2, 3}, "Float32", std::string(12, '\0')));
  expect_bytes_refused(dir, slice + slice + slice,
                       "needs 24 bytes, but tensor_content holds 36 in 3 slices", "tag 'w'");
  expect_bytes_refused(dir, slice + value("w", tensor({2, 3}, "Float16", std::string(12, '\0'))),
                       "a slice of the tensor is Float16 [2, 3], its first slice Float32 [2, 3]",
                       "tag 'w', offset " + std::to_string(slice.size()));
  expect_bytes_refused(dir, slice + value("w", tensor({6}, "Float32", std::string(12, '\0'))),
                       "a slice of the tensor is Float32 [6]", "tag 'w'");
}

TEST_CASE("a tag repeated apart from its slices is refused", "[unit]") {
  TempDir dir;
  const auto w = value("w", tensor({2}, "Float32", kTwoFloats));
  const auto v = value("v", tensor({2}, "Float32", kTwoFloats));
  expect_bytes_refused(dir, w + v + w, "the tag appears again after other values",
                       "tag 'w', offset " + std::to_string(w.size() + v.size()));
  // A non-tensor value between two values of one tag also separates them.
  const auto text = value("w", tensor({0}, "str", std::string(4, 'a')));
  expect_bytes_refused(dir, w + text + w, "appears again");
}

TEST_CASE("unknown and unsupported tensor types are refused naming tag and type", "[unit]") {
  TempDir dir;
  expect_bytes_refused(dir, value("layer1.w", tensor({2}, "Float33", kTwoFloats)),
                       "unknown tensor_type 'Float33'", "tag 'layer1.w', offset 0");
  expect_bytes_refused(dir, value("ids", tensor({4}, "UInt16", kTwoFloats)),
                       "tensor_type 'UInt16' has no Parity dtype", "tag 'ids', offset 0");
}

TEST_CASE("a Bool element other than 0 or 1 is refused on read", "[unit]") {
  TempDir dir;
  write_bytes(dir / "bool.ckpt",
              value("mask", tensor({3}, "Bool", std::string("\x01\x02\x00", 3))));
  const auto source = open_mindspore_checkpoint(dir / "bool.ckpt");
  try {
    source->read("mask");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK_THAT(e.what_failed(), Catch::Contains("Bool element 1 is 2"));
    // mask: key@0 len@1 | tag@2..7 | tensor key@8 len@9 | dims@10,11 | type@12..17 | content@18..
    CHECK(e.where() == (dir / "bool.ckpt").string() + ", tag 'mask', offset 21");
  }
}

TEST_CASE("packed dims and fields a later MindSpore may add are read", "[unit]") {
  TempDir dir;
  const std::string packed = bytes_field(1, varint(1) + varint(2));
  const std::string extra_value_field = varint_field(9, 7);
  const std::string extra_tensor_field = bytes_field(12, "layout") + "\x2d" + "abcd";
  write_bytes(dir / "a.ckpt", bytes_field(1, bytes_field(1, "w") + extra_value_field +
                                                 bytes_field(2, packed + bytes_field(2, "Float32") +
                                                                    extra_tensor_field +
                                                                    bytes_field(3, kTwoFloats))));
  const auto source = open_mindspore_checkpoint(dir / "a.ckpt");
  REQUIRE(source->entries().size() == 1);
  CHECK(source->entries()[0].shape == std::vector<std::int64_t>{1, 2});
  CHECK(source->read("w").values<float>() == std::vector<float>{0.f, 0.f});
}

TEST_CASE("no single changed byte of a checkpoint crashes the reader", "[unit]") {
  TempDir dir;
  const std::string good = read_bytes(fixture("legacy_and_extras.ckpt"));
  for (std::size_t at = 0; at < good.size(); ++at)
    for (const unsigned char mask : {0x01, 0x80, 0xff}) {
      std::string changed = good;
      changed[at] = static_cast<char>(changed[at] ^ mask);
      const auto path = dir / "changed.ckpt";
      write_bytes(path, changed);
      INFO("byte " << at << " ^ " << int(mask));
      try {
        const auto source = open_mindspore_checkpoint(path);
        for (const auto& entry : source->entries()) {
          const NamedTensor tensor = source->read(entry.name);
          CHECK(tensor.is_consistent());
          CHECK(tensor.shape == entry.shape);
        }
      } catch (const Error& e) {
        CHECK_THAT(e.where(), Catch::Contains(path.string()));
      }
    }
}
