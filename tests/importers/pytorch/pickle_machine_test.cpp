// The safe pickle reader: every protocol read as Python wrote it, every
// global off the allow-list refused by name and offset, and every malformed
// or oversized pickle refused with an error rather than a crash.
#include <catch2/catch.hpp>

#include "expect_error.hpp"
#include "parity/core/error.hpp"
#include "parity/importers/pickle.hpp"
#include "torch_fixture.hpp"

using parity::importers::Pickle;
using parity::importers::PickleBytesInput;
using parity::importers::PickleKind;
using parity::importers::PickleLimits;
using parity::test::expect_error;
using parity::test::parse_pickle;
using parity::test::PickleBuilder;
using namespace std::string_literals;

namespace {

void expect_pickle_error(const std::string& bytes, const std::string& what,
                         const std::string& where = "test.pkl, offset") {
  expect_error([&] { parse_pickle(bytes); }, what, {where});
}

// A protocol 2 pickle of one LONG1 integer: `bytes` little-endian, two's complement.
Pickle parse_long1(const std::string& bytes) {
  return parse_pickle(PickleBuilder()
                          .proto(2)
                          .raw("\x8a")
                          .raw(std::string(1, static_cast<char>(bytes.size())))
                          .raw(bytes)
                          .stop()
                          .bytes());
}

}  // namespace

TEST_CASE("pickles of protocols 0 to 5 written by Python read back value for value", "[e2e]") {
  const auto& dir = parity::test::torch_peer_dir();
  const std::string expected = parity::test::read_file(dir / "plain.txt");
  for (int protocol = 0; protocol <= 5; ++protocol) {
    INFO("protocol " << protocol);
    const std::string file = "plain_p" + std::to_string(protocol) + ".pkl";
    const std::string bytes = parity::test::read_file(dir / file);
    const Pickle pickle = parse_pickle(bytes, file);
    CHECK(parity::test::render_pickle(pickle) == expected);
    CHECK(pickle.end_offset == bytes.size());
  }
}

TEST_CASE("a pickle stops at STOP and says where it ended", "[unit]") {
  const std::string bytes = PickleBuilder().proto(2).integer(7).stop().raw("trailing").bytes();
  PickleBytesInput input(std::as_bytes(std::span(bytes.data(), bytes.size())), 100);
  const Pickle pickle = parity::importers::read_pickle(input, "x");
  CHECK(pickle[pickle.root].integer == 7);
  CHECK(pickle.end_offset == 100 + bytes.size() - 8);
  CHECK(pickle[pickle.root].offset == 102);
}

TEST_CASE("integers beyond int64 are kept as bytes, within it as int64", "[unit]") {
  // 2**63 needs nine bytes; -2**63 fits in eight.
  const Pickle large = parse_long1(std::string("\0\0\0\0\0\0\0\x80\0", 9));
  CHECK(large[large.root].kind == PickleKind::kLargeInt);
  CHECK(large[large.root].text.size() == 9);
  const Pickle fits = parse_long1(std::string("\0\0\0\0\0\0\0\x80\xff", 9));
  CHECK(fits[fits.root].kind == PickleKind::kInt);
  CHECK(fits[fits.root].integer == INT64_MIN);
  const Pickle empty = parse_long1("");
  CHECK(empty[empty.root].integer == 0);
  // Protocols 0 and 1 write them as decimal text: the same bytes.
  const Pickle magic = parse_pickle("L119547037146038801333356L\n.");
  CHECK(magic[magic.root].kind == PickleKind::kLargeInt);
  CHECK(magic[magic.root].text == "\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19");
  const Pickle negative = parse_pickle("I-18446744073709551616\n.");
  CHECK(negative[negative.root].text == std::string(8, '\0') + "\xff");
  const Pickle int_min = parse_pickle("L-9223372036854775808L\n.");
  CHECK(int_min[int_min.root].integer == INT64_MIN);
  expect_pickle_error("I" + std::string(101, '9') + "\n.",
                      "is not an integer of at most 100 digits");
}

TEST_CASE("the memo shares values and refuses reads of unwritten entries", "[unit]") {
  // [x, x] where x = [] memoized as 5 and then appended to once.
  const Pickle pickle = parse_pickle(PickleBuilder()
                                         .proto(2)
                                         .op(']')
                                         .raw("q\x05")
                                         .op('K')
                                         .raw("\x01")
                                         .op('a')
                                         .op('0')
                                         .mark()
                                         .raw("h\x05h\x05")
                                         .op('l')
                                         .stop()
                                         .bytes());
  const auto& outer = pickle[pickle.root];
  REQUIRE(outer.items.size() == 2);
  CHECK(outer.items[0] == outer.items[1]);
  CHECK(pickle[outer.items[0]].items.size() == 1);
  expect_pickle_error(PickleBuilder().proto(2).raw("h\x09").stop().bytes(),
                      "memo entry 9 is read before it is written", "test.pkl, offset 2");
}

TEST_CASE("globals off the allow-list are refused by name and offset", "[unit]") {
  expect_pickle_error(PickleBuilder().proto(2).global("os", "system").stop().bytes(), "'os.system'",
                      "test.pkl, offset 2");
  expect_pickle_error(
      PickleBuilder().proto(4).str("builtins").str("eval").op('\x93').stop().bytes(),
      "'builtins.eval'", "test.pkl, offset 24");
  expect_pickle_error(PickleBuilder().proto(2).global("builtins", "getattr").stop().bytes(),
                      "'builtins.getattr'", "test.pkl");
  expect_pickle_error(PickleBuilder().proto(2).global("subprocess", "Popen").stop().bytes(),
                      "'subprocess.Popen'", "test.pkl");
  // A name with a newline or control bytes is shown escaped.
  expect_pickle_error(PickleBuilder().proto(4).str("torch\x01").str("x").op('\x93').stop().bytes(),
                      "'torch\\x01.x'", "test.pkl");
}

TEST_CASE("every allow-listed global is a module and a name with a reason", "[unit]") {
  for (const auto& allowed : parity::importers::allowed_pickle_globals()) {
    INFO(allowed.module << "." << allowed.name);
    CHECK_FALSE(allowed.module.empty());
    CHECK_FALSE(allowed.name.empty());
    CHECK_FALSE(allowed.why.empty());
    CHECK(parity::importers::is_allowed_pickle_global(allowed.module, allowed.name));
  }
  CHECK_FALSE(parity::importers::is_allowed_pickle_global("torch", "load"));
  CHECK_FALSE(parity::importers::is_allowed_pickle_global("posix", "system"));
}

TEST_CASE("allowed calls become call nodes, containers PyTorch calls become containers", "[unit]") {
  const Pickle pickle = parse_pickle(PickleBuilder()
                                         .proto(2)
                                         .mark()
                                         .global("torch", "device")
                                         .str("cuda")
                                         .integer(1)
                                         .op('\x86')
                                         .op('R')
                                         .global("collections", "OrderedDict")
                                         .op(')')
                                         .op('R')
                                         .mark()
                                         .str("k")
                                         .op('N')
                                         .op('u')
                                         .op('}')
                                         .op('b')  // BUILD: OrderedDict attributes
                                         .global("__builtin__", "set")
                                         .mark()
                                         .op('K')
                                         .raw("\x04")
                                         .op('l')
                                         .op('\x85')
                                         .op('R')
                                         .global("_codecs", "encode")
                                         .str("\xc3\xbf")
                                         .str("latin1")
                                         .op('\x86')
                                         .op('R')
                                         .op('l')
                                         .stop()
                                         .bytes());
  const auto& items = pickle[pickle.root].items;
  REQUIRE(items.size() == 4);
  CHECK(pickle[items[0]].kind == PickleKind::kCall);
  CHECK(pickle[items[0]].text == "torch.device");
  CHECK(pickle[pickle[items[0]].argument].items.size() == 2);
  CHECK(pickle[items[1]].kind == PickleKind::kDict);
  CHECK(pickle[items[1]].entries.size() == 1);
  CHECK(pickle[items[1]].state.has_value());
  CHECK(pickle[items[2]].kind == PickleKind::kSet);
  CHECK(pickle[items[3]].kind == PickleKind::kBytes);
  CHECK(pickle[items[3]].text == "\xff");
}

TEST_CASE("malformed pickles are refused with the offset of the opcode", "[unit]") {
  expect_pickle_error("\x80\x02\xfe.", "unknown pickle opcode 0xfe", "test.pkl, offset 2");
  expect_pickle_error("\x80\x06.", "pickle protocol 6 is newer than 5", "offset 0");
  expect_pickle_error("\x80\x02.", "stack underflow", "offset 2");
  expect_pickle_error("\x80\x02(.", "stack underflow", "offset 3");
  expect_pickle_error("\x80\x02N(R.", "stack underflow", "offset 4");
  expect_pickle_error("\x80\x02t.", "needs a MARK", "offset 2");
  expect_pickle_error("\x80\x02K\x01K\x02R.", "REDUCE calls a int, not a global", "offset 6");
  expect_pickle_error("\x80\x02]}b.", "BUILD sets the state of a list", "offset 4");
  expect_pickle_error("\x80\x02}Na.", "APPEND applies to a dict, not a list", "offset 4");
  expect_pickle_error("\x80\x02](K\x01u.", "SETITEMS has a key without a value", "offset 6");
  expect_pickle_error("\x80\x02\x82\x01.", "extension registry", "offset 2");
  expect_pickle_error("\x80\x05\x97.", "out-of-band buffer", "offset 2");
  expect_pickle_error("\x80\x04\x92.", "NEWOBJ_EX", "offset 2");
  expect_pickle_error("\x80\x03X\x02\x00\x00\x00\xc3\x28."s, "not valid UTF-8", "offset 2");
  expect_pickle_error("\x80\x04\x95\xff\x00\x00\x00\x00\x00\x00\x00N."s, "frame of 255 bytes",
                      "offset 2");
  expect_pickle_error("\x80\x02\x8b\xff\xff\xff\xff.", "negative length", "offset 2");
  expect_pickle_error("S'unterminated\n.", "is not a quoted string", "offset 0");
  expect_pickle_error("Fnot-a-number\n.", "is not a number", "offset 0");
  expect_pickle_error("Vbad \\u12\n.", "malformed escape", "offset 0");
}

TEST_CASE("a pickle cut at any length is refused as truncated", "[unit]") {
  const std::string bytes =
      parity::test::read_file(parity::test::torch_peer_dir() / "plain_p4.pkl");
  for (std::size_t length = 0; length < bytes.size(); ++length) {
    INFO("length " << length);
    expect_pickle_error(bytes.substr(0, length), "the pickle ends at offset", "test.pkl, offset");
  }
}

TEST_CASE("lengths are checked against the input before anything is allocated", "[unit]") {
  // BINUNICODE8 and BINBYTES8 claiming 2^62 bytes.
  expect_pickle_error("\x80\x04\x8d\x00\x00\x00\x00\x00\x00\x00\x40."s,
                      "4611686018427387904 bytes needed", "offset 2");
  expect_pickle_error("\x80\x04\x8e\xff\xff\xff\xff\xff\xff\xff\xff.", "bytes needed", "offset 2");
}

TEST_CASE("stack, memo, value and line limits are enforced", "[unit]") {
  const auto parse_with = [](const std::string& bytes, const PickleLimits& limits) {
    PickleBytesInput input(std::as_bytes(std::span(bytes.data(), bytes.size())));
    parity::importers::read_pickle(input, "limited.pkl", limits);
  };
  PickleLimits limits;
  limits.max_stack = 100;
  expect_error([&] { parse_with(std::string(200, 'N') + ".", limits); }, "stack grows past 100",
               {"limited.pkl, offset 100"});
  expect_error([&] { parse_with(std::string(200, '(') + ".", limits); }, "marks", {"limited.pkl"});
  limits = {};
  limits.max_memo = 10;
  std::string memo_heavy = "\x80\x04N";
  for (int i = 0; i < 20; ++i) memo_heavy += '\x94';
  expect_error([&] { parse_with(memo_heavy + ".", limits); }, "memo grows past 10",
               {"limited.pkl"});
  limits = {};
  limits.max_values = 50;
  expect_error([&] { parse_with("\x80\x02]" + std::string(60, 'N') + ".", limits); },
               "more than 50 values", {"limited.pkl"});
  limits = {};
  limits.max_string = 8;
  expect_error(
      [&] {
        parse_with(PickleBuilder().proto(3).op('C').raw("\x09").raw("123456789").stop().bytes(),
                   limits);
      },
      "a bytes value of 9 bytes is longer than the limit of 8", {"limited.pkl, offset 2"});
  limits = {};
  limits.max_line = 16;
  expect_error([&] { parse_with("c" + std::string(40, 'a') + "\nb\n.", limits); },
               "longer than 16 bytes", {"limited.pkl"});
}

TEST_CASE("copying a memoized container over and over is bounded", "[unit]") {
  // One list of 40 items, turned into a set 100 times: 4,000 copied values.
  std::string bytes = "\x80\x02]q\x00("s + std::string(40, 'N') + "e";
  bytes += "c__builtin__\nset\nq\x01";
  for (int i = 0; i < 100; ++i) bytes += "h\x01h\x00\x85R0"s;
  bytes += "N.";
  PickleLimits limits;
  limits.max_values = 1000;
  PickleBytesInput input(std::as_bytes(std::span(bytes.data(), bytes.size())));
  expect_error([&] { parity::importers::read_pickle(input, "copies.pkl", limits); },
               "copies more than 1000 values", {"copies.pkl"});
}
