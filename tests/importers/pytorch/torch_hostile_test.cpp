// Hostile, damaged and foreign files are refused with a parity::Error that
// names the file and the fault; nothing in them ever runs, and no input -
// truncated anywhere, any byte changed - crashes the reader.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "expect_error.hpp"
#include "parity/core/error.hpp"
#include "parity/importers/torch_checkpoint.hpp"
#include "temp_dir.hpp"
#include "torch_fixture.hpp"

using parity::Error;
using parity::importers::open_torch_checkpoint;
using parity::test::expect_error;
using parity::test::LegacyStorage;
using parity::test::PickleBuilder;
using parity::test::torch_peer_dir;
using parity::test::write_legacy_checkpoint;

namespace {

namespace fs = std::filesystem;

// Opens `path` and reads every tensor.
void open_and_read(const fs::path& path) {
  const auto source = open_torch_checkpoint(path);
  for (const auto& entry : source->entries()) source->read(entry.name);
}

void expect_refused(const fs::path& path, const std::string& what, const std::string& where = {}) {
  expect_error([&] { open_and_read(path); }, what, {path.string() + where});
}

// A dict pickle {key: value, ...}; each value is a pickle fragment.
std::string dict_pickle(const std::vector<std::pair<std::string, std::string>>& entries) {
  PickleBuilder builder;
  builder.proto(2).op('}').mark();
  for (const auto& [key, value] : entries) builder.str(key).raw(value);
  return builder.op('u').stop().bytes();
}

std::string float_tensor(std::string_view key, std::int64_t numel, std::int64_t offset,
                         const std::vector<std::int64_t>& shape,
                         const std::vector<std::int64_t>& stride) {
  return PickleBuilder().tensor("FloatStorage", key, numel, offset, shape, stride).bytes();
}

LegacyStorage floats(std::string key, std::uint64_t count) {
  return {std::move(key), count, std::string(count * 4, '\0')};
}

}  // namespace

TEST_CASE("pickles that would run code are refused naming the global, nothing runs", "[e2e]") {
  const auto& dir = torch_peer_dir();
  fs::remove(parity::test::torch_attack_marker());
  const std::vector<std::pair<std::string, std::string>> attacks = {{"system", "'posix.system'"},
                                                                    {"eval", "eval'"},
                                                                    {"popen", "Popen'"},
                                                                    {"getattr", "getattr'"}};
  for (const auto& [attack, global] : attacks)
    for (const char* protocol : {"_p2", "_p4"})
      expect_refused(dir / ("evil_" + attack + protocol + ".pkl"), global, ", offset ");
  expect_refused(dir / "evil_system.pth", "'posix.system'", ", member '");
  expect_refused(dir / "evil_eval_legacy.pth", "'__builtin__.eval'", ", offset ");
  CHECK_FALSE(fs::exists(parity::test::torch_attack_marker()));
}

TEST_CASE("files that are not torch.save checkpoints are named as such", "[unit]") {
  const auto& dir = torch_peer_dir();
  expect_refused(dir / "scripted.pt", "TorchScript archive");
  expect_refused(dir / "other.zip", "holds no 'folder/data.pkl'");
  expect_refused(dir / "plain_p2.pkl", "not torch.save's magic number", ", offset 0");
  TempDir temp;
  parity::test::write_file(temp / "text.pth", "hello, world");
  expect_refused(temp / "text.pth", "starts with neither a zip header");
  parity::test::write_file(temp / "empty.pth", "");
  expect_refused(temp / "empty.pth", "starts with neither a zip header");
  std::string tar(1024, '\0');
  tar.replace(257, 5, "ustar");
  parity::test::write_file(temp / "old.pth", tar);
  expect_refused(temp / "old.pth", "tar-format checkpoint");
  write_legacy_checkpoint(temp / "version.pth", dict_pickle({}), {});
  std::string bytes = parity::test::read_file(temp / "version.pth");
  bytes[19] = '\xea';  // the version pickle's 8-byte 1001 (0x03e9) becomes 1002
  parity::test::write_file(temp / "version.pth", bytes);
  expect_refused(temp / "version.pth", "unknown legacy protocol version (the file says 1002");
  expect_refused(dir / "badorder.pth", "says 'middle', not 'little' or 'big'", ", member '");
}

TEST_CASE("storage sizes that disagree with the file are refused", "[unit]") {
  expect_refused(torch_peer_dir() / "short_storage.pth",
                 "storage '0' holds 94 bytes, but the pickle describes 96", ", member '");
  TempDir temp;
  const std::string object = dict_pickle({{"w", float_tensor("k", 4, 0, {4}, {1})}});
  write_legacy_checkpoint(temp / "count.pth", object, {floats("k", 5)});
  expect_refused(temp / "count.pth",
                 "storage 'k' holds 5 elements in the file, but the pickle describes 4",
                 ", offset ");
  LegacyStorage short_bytes = floats("k", 4);
  short_bytes.bytes.resize(10);
  write_legacy_checkpoint(temp / "short.pth", object, {short_bytes});
  expect_refused(temp / "short.pth", "storage 'k' (16 bytes) runs past the end of the file");
  write_legacy_checkpoint(temp / "unlisted.pth", object, {});
  expect_refused(temp / "unlisted.pth", "storage 'k' is used by the pickle but missing");
  write_legacy_checkpoint(temp / "unused.pth", object, {floats("k", 4), floats("extra", 1)});
  expect_refused(temp / "unused.pth", "names 'extra', which no tensor in the pickle uses");
}

TEST_CASE("tensor descriptions that cannot be right are refused naming the tensor", "[unit]") {
  TempDir temp;
  const auto refuse = [&](const std::string& value, const std::string& what) {
    write_legacy_checkpoint(temp / "bad.pth", dict_pickle({{"t", value}}), {floats("k", 4)});
    expect_refused(temp / "bad.pth", what, ", tensor 't'");
  };
  refuse(float_tensor("k", 4, 2, {3}, {1}), "runs past the end of storage 'k' (16 bytes)");
  refuse(float_tensor("k", 4, 0, {2, 2}, {2, 2}), "runs past the end of storage 'k'");
  refuse(float_tensor("k", 4, 0, {2, 2}, {2}), "it has 2 sizes but 1 strides");
  refuse(float_tensor("k", 4, 0, {2}, {-1}), "every entry of the stride is negative");
  refuse(float_tensor("k", 4, -1, {2}, {1}), "the storage offset is negative");
  refuse(float_tensor("k", 4, 0, {INT64_MAX, 2}, {1, 1}), "is too large");
  refuse(float_tensor("k", 4, 0, {2, 2}, {1LL << 62, 1LL << 62}),
         "its strides reach past any storage");
  refuse(PickleBuilder().tensor("ComplexFloatStorage", "k", 2, 0, {2}, {1}).bytes(),
         "its dtype complex64 is not supported");
  refuse(PickleBuilder()
             .global("torch._utils", "_rebuild_qtensor")
             .mark()
             .mark()
             .str("storage")
             .global("torch", "QInt8Storage")
             .str("q")
             .str("cpu")
             .integer(4)
             .op('t')
             .op('Q')
             .op('t')
             .op('R')
             .bytes(),
         "quantized tensors (qint8) are not supported");
  refuse(PickleBuilder()
             .global("torch._utils", "_rebuild_tensor_v2")
             .mark()
             .integer(1)
             .op('t')
             .op('R')
             .bytes(),
         "has 1 arguments");
  refuse(PickleBuilder()
             .global("torch._utils", "_rebuild_parameter")
             .mark()
             .integer(1)
             .integer(2)
             .integer(3)
             .op('t')
             .op('R')
             .bytes(),
         "a Parameter must wrap a tensor");
  refuse(PickleBuilder()
             .global("torch._utils", "_rebuild_tensor")
             .mark()
             .mark()
             .str("storage")
             .global("torch", "Size")
             .str("k")
             .str("cpu")
             .integer(4)
             .op('t')
             .op('Q')
             .integer(0)
             .ints({4})
             .ints({1})
             .op('t')
             .op('R')
             .bytes(),
         "'torch.Size' is not a storage type");
}

TEST_CASE("two tensors of one name, or one storage described two ways, are refused", "[unit]") {
  TempDir temp;
  const std::string inner =
      PickleBuilder().op('}').str("b").raw(float_tensor("k", 4, 0, {4}, {1})).op('s').bytes();
  write_legacy_checkpoint(temp / "dup.pth",
                          dict_pickle({{"a.b", float_tensor("k", 4, 0, {4}, {1})}, {"a", inner}}),
                          {floats("k", 4)});
  expect_refused(temp / "dup.pth", "two tensors would both be called 'a.b'", ", tensor 'a.b'");
  write_legacy_checkpoint(temp / "twice.pth",
                          dict_pickle({{"a", float_tensor("k", 4, 0, {4}, {1})},
                                       {"b", float_tensor("k", 5, 0, {4}, {1})}}),
                          {floats("k", 4)});
  expect_refused(temp / "twice.pth", "storage 'k' is described twice, differently", ", tensor 'b'");
}

TEST_CASE("deep nesting, cycles and exponential sharing are refused", "[unit]") {
  TempDir temp;
  const std::string tensor = float_tensor("k", 4, 0, {4}, {1});
  // 300 lists, each holding the next, the innermost the tensor.
  const std::string deep = PickleBuilder()
                               .proto(2)
                               .raw(std::string(300, ']'))
                               .raw(tensor)
                               .raw(std::string(300, 'a'))
                               .stop()
                               .bytes();
  write_legacy_checkpoint(temp / "deep.pth", deep, {floats("k", 4)});
  expect_refused(temp / "deep.pth", "nests containers more than 200 levels deep", ", offset ");
  // A list that holds itself.
  write_legacy_checkpoint(temp / "cycle.pth",
                          PickleBuilder().proto(2).op(']').raw("q\x01h\x01").op('a').stop().bytes(),
                          {});
  expect_refused(temp / "cycle.pth", "or a container holds itself");
  // [x, x] nested 40 times: 2^40 paths through 80 values.
  PickleBuilder shared;
  shared.proto(2).op(']');
  for (int level = 0; level < 40; ++level) shared.op('2').op('\x86');
  write_legacy_checkpoint(temp / "shared.pth", shared.stop().bytes(), {});
  expect_refused(temp / "shared.pth", "refer to one another more than");
  // A 40,000-byte key, memoized and used twice on the way to a tensor.
  const std::string key(40'000, 'k');
  write_legacy_checkpoint(temp / "long.pth",
                          PickleBuilder()
                              .proto(2)
                              .op('}')
                              .str(key)
                              .raw("q\x01")
                              .op('}')
                              .raw("h\x01")
                              .raw(tensor)
                              .op('s')
                              .op('s')
                              .stop()
                              .bytes(),
                          {floats("k", 4)});
  expect_refused(temp / "long.pth", "a tensor's name would be longer than 65536 bytes");
}

TEST_CASE("a changed opcode is reported at its file offset", "[unit]") {
  TempDir temp;
  write_legacy_checkpoint(temp / "ok.pth", dict_pickle({{"w", float_tensor("k", 4, 0, {4}, {1})}}),
                          {floats("k", 4)});
  std::string bytes = parity::test::read_file(temp / "ok.pth");
  // The object pickle follows the magic (15 bytes), version (13) and info (4)
  // pickles; after its PROTO opcode, its EMPTY_DICT is at offset 34.
  REQUIRE(bytes[34] == '}');
  bytes[34] = '\xfe';
  parity::test::write_file(temp / "bad.pth", bytes);
  expect_refused(temp / "bad.pth", "unknown pickle opcode 0xfe", ", offset 34");
}

TEST_CASE("files cut at every length are refused, never crash", "[unit]") {
  TempDir temp;
  for (const char* name : {"dtypes.pth", "dtypes_legacy.pth", "nested_legacy.pth"}) {
    const fs::path cut = temp / name;
    fs::copy_file(torch_peer_dir() / name, cut);
    for (auto length = fs::file_size(cut); length-- > 0;) {
      INFO(name << " cut at " << length);
      fs::resize_file(cut, length);
      try {
        open_and_read(cut);
        FAIL("no error");
      } catch (const Error& e) {
        CHECK_THAT(e.where(), Catch::Contains(cut.string()));
      }
    }
  }
}

TEST_CASE("files with any one byte changed are read or refused, never crash", "[unit]") {
  TempDir temp;
  for (const char* name : {"dtypes_legacy.pth", "protocol4_legacy.pth", "protocol2.pth"}) {
    const std::string bytes = parity::test::read_file(torch_peer_dir() / name);
    const fs::path changed = temp / name;
    parity::test::write_file(changed, bytes);
    std::fstream file(changed, std::ios::in | std::ios::out | std::ios::binary);
    const auto put = [&](std::size_t offset, char value) {
      file.seekp(static_cast<std::streamoff>(offset));
      file.put(value);
      file.flush();
    };
    int refused = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      for (const char value : {'\xfe', '\x00', 'X'}) {
        put(i, value);
        try {
          open_and_read(changed);
        } catch (const Error& e) {
          ++refused;
          INFO(name << " byte " << i);
          CHECK_THAT(e.where(), Catch::Contains(changed.string()));
        }
      }
      put(i, bytes[i]);
    }
    CHECK(refused > 0);
  }
}
