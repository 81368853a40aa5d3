// The streaming reader of Chrome trace-event JSON: each event handed over as
// its own text and offset whatever the chunk boundaries, plain or gzip, and
// every malformed document refused with the byte offset where it went wrong.
#include "json/chrome_json_stream.hpp"

#include <zlib.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "parity/core/error.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using parity::importers::trace::JsonStreamCallbacks;
using parity::importers::trace::JsonStreamResult;
using parity::importers::trace::RawJsonValue;
using parity::importers::trace::read_chrome_json;

namespace {

constexpr std::size_t kChunk = std::size_t(4) << 20;  // the reader's chunk size

struct Read {
  JsonStreamResult result;
  std::vector<std::pair<std::string, std::uint64_t>> events;  // text, offset
  std::vector<std::pair<std::string, std::string>> members;   // key, value text
};

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

void write_gzip(const fs::path& path, const std::string& text) {
  gzFile file = gzopen(path.string().c_str(), "wb");
  REQUIRE(file != nullptr);
  REQUIRE(gzwrite(file, text.data(), static_cast<unsigned>(text.size())) ==
          static_cast<int>(text.size()));
  REQUIRE(gzclose(file) == Z_OK);
}

Read read_file(const fs::path& path) {
  Read read;
  JsonStreamCallbacks callbacks;
  callbacks.on_event = [&](const RawJsonValue& value) {
    read.events.emplace_back(std::string(value.text), value.offset);
  };
  callbacks.on_member = [&](std::string_view key, const RawJsonValue& value) {
    read.members.emplace_back(std::string(key), std::string(value.text));
  };
  read.result = read_chrome_json(path, callbacks);
  return read;
}

Read read_text(const std::string& text) {
  TempDir dir;
  write_file(dir / "trace.json", text);
  return read_file(dir / "trace.json");
}

// The offset of each event of `events` when they are written one after the
// other from `start`, separated by `separator`.
std::vector<std::uint64_t> offsets_of(const std::vector<std::string>& events, std::size_t start,
                                      std::size_t separator) {
  std::vector<std::uint64_t> offsets;
  for (const std::string& event : events) {
    offsets.push_back(start);
    start += event.size() + separator;
  }
  return offsets;
}

void check_events(const Read& read, const std::vector<std::string>& events,
                  const std::vector<std::uint64_t>& offsets) {
  REQUIRE(read.events.size() == events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    INFO("event " << i);
    CHECK(read.events[i].first.size() == events[i].size());
    CHECK(read.events[i].first == events[i]);
    CHECK(read.events[i].second == offsets[i]);
  }
}

// Expects read_chrome_json to refuse the text with a parity::Error that names
// the file, `what`, and the byte offset `at`.
void expect_refused(const std::string& text, const std::string& what, std::uint64_t at) {
  TempDir dir;
  const fs::path path = dir / "trace.json";
  write_file(path, text);
  try {
    read_file(path);
    FAIL("accepted; expected: " << what);
  } catch (const parity::Error& e) {
    INFO(e.what());
    CHECK_THAT(e.what_failed(), Catch::Contains(what));
    CHECK_THAT(e.what_failed(), Catch::Contains("at byte " + std::to_string(at)));
    CHECK_THAT(e.where(), Catch::Contains(path.string()));
    CHECK_FALSE(e.hint().empty());
  }
}

const std::vector<std::string> kThreeEvents = {
    R"({"ph": "X", "name": "a", "ts": 1, "dur": 2, "pid": 1, "tid": 1})",
    R"({"ph": "i", "name": "b", "ts": 2, "args": {"x": [1, 2, {"y": "z"}]}})",
    R"({"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"main"}})"};

}  // namespace

TEST_CASE("the Object Format hands over each event and every other member", "[unit]") {
  const std::string head = "{\"schemaVersion\": 1, \"traceEvents\": [";
  const std::string text = head + kThreeEvents[0] + ", " + kThreeEvents[1] + ", " +
                           kThreeEvents[2] + "], \"deviceProperties\": [{\"id\": 0}],\n" +
                           "\"displayTimeUnit\": \"ms\", \"baseTimeNanoseconds\": 17}\n";
  const Read read = read_text(text);
  CHECK(read.result.object_format);
  CHECK_FALSE(read.result.unclosed_array);
  CHECK(read.result.document_bytes == text.size());
  check_events(read, kThreeEvents, offsets_of(kThreeEvents, head.size(), 2));
  const std::vector<std::pair<std::string, std::string>> members = {
      {"schemaVersion", "1"},
      {"deviceProperties", "[{\"id\": 0}]"},
      {"displayTimeUnit", "\"ms\""},
      {"baseTimeNanoseconds", "17"}};
  CHECK(read.members == members);
}

TEST_CASE("the Object Format may hold no events, and whitespace anywhere", "[unit]") {
  const Read empty = read_text(" \n\t{ \"traceEvents\" : [ ] } \n");
  CHECK(empty.result.object_format);
  CHECK(empty.events.empty());

  const std::string text = "\n{\n  \"traceEvents\"\t:\r\n [\n  " + kThreeEvents[0] + "\n  ,\n  " +
                           kThreeEvents[1] + "\n ]\n}";
  const Read read = read_text(text);
  REQUIRE(read.events.size() == 2);
  CHECK(read.events[0].first == kThreeEvents[0]);
  CHECK(read.events[0].second == text.find(kThreeEvents[0]));
  CHECK(read.events[1].first == kThreeEvents[1]);
  CHECK(read.events[1].second == text.find(kThreeEvents[1]));
}

TEST_CASE("the Array Format hands over each event", "[unit]") {
  const std::string text =
      "[" + kThreeEvents[0] + "," + kThreeEvents[1] + "," + kThreeEvents[2] + "]\n";
  const Read read = read_text(text);
  CHECK_FALSE(read.result.object_format);
  CHECK_FALSE(read.result.unclosed_array);
  CHECK(read.members.empty());
  check_events(read, kThreeEvents, offsets_of(kThreeEvents, 1, 1));
}

TEST_CASE("an Array Format without its closing bracket is read and said to be unclosed", "[unit]") {
  SECTION("after an event") {
    const Read read = read_text("[" + kThreeEvents[0] + ",\n" + kThreeEvents[1] + "\n");
    CHECK(read.result.unclosed_array);
    check_events(read, {kThreeEvents[0], kThreeEvents[1]},
                 offsets_of({kThreeEvents[0], kThreeEvents[1]}, 1, 2));
  }
  SECTION("after a trailing comma") {
    const Read read = read_text("[" + kThreeEvents[0] + ",\n" + kThreeEvents[1] + ",\n");
    CHECK(read.result.unclosed_array);
    CHECK(read.events.size() == 2);
  }
  SECTION("with no events at all") {
    const Read read = read_text("[\n");
    CHECK(read.result.unclosed_array);
    CHECK(read.events.empty());
  }
  SECTION("a trailing comma before the closing bracket") {
    const Read read = read_text("[" + kThreeEvents[0] + ",]");
    CHECK_FALSE(read.result.unclosed_array);
    CHECK(read.events.size() == 1);
  }
}

TEST_CASE("braces, brackets, quotes and backslashes inside strings do not confuse nesting",
          "[unit]") {
  const std::vector<std::string> events = {
      R"({"ph": "X", "name": "}]}]", "args": {"s": "{[{[", "t": "\"}", "u": "\\"}})",
      R"({"ph": "X", "name": "a\\\"]}\\", "args": {"k}": "v]"}})",
      R"({"ph": "i", "name": "\u007d\n\t]", "args": {}})"};
  const std::string text = "{\"otherData\": {\"a\": \"}]\\\"\"}, \"traceEvents\": [" + events[0] +
                           ", " + events[1] + ", " + events[2] + "]}";
  const Read read = read_text(text);
  check_events(read, events, {text.find(events[0]), text.find(events[1]), text.find(events[2])});
  REQUIRE(read.members.size() == 1);
  CHECK(read.members[0].second == "{\"a\": \"}]\\\"\"}");
}

TEST_CASE("an event larger than a chunk comes out whole", "[unit]") {
  const std::string big = std::string(5 << 20, 'x');
  const std::vector<std::string> events = {
      kThreeEvents[0], R"({"ph": "X", "name": "big", "args": {"s": ")" + big + R"("}})",
      kThreeEvents[1]};
  const std::string text = "[" + events[0] + ",\n" + events[1] + ",\n" + events[2] + "]";
  const Read read = read_text(text);
  check_events(read, events, offsets_of(events, 1, 2));
}

TEST_CASE("an escape that straddles the chunk boundary is read across it", "[unit]") {
  // The string of the second event holds \" or \\ with the backslash the last
  // byte of the first chunk: what follows it must be read as escaped.
  const std::string first = kThreeEvents[0];
  const std::string open = R"({"ph": "X", "name": ")";
  const std::size_t start = 1 + first.size() + 1;  // '[' first ','
  const std::size_t fill = kChunk - 1 - start - open.size();
  for (const std::string escaped : {"\\\"", "\\\\"}) {
    INFO("escape " << escaped);
    const std::string second = open + std::string(fill, 'y') + escaped + "]}\", \"ts\": 1}";
    const std::string text = "[" + first + "," + second + "," + kThreeEvents[1] + "]";
    REQUIRE(text.substr(kChunk - 1, 2) == escaped);
    const Read read = read_text(text);
    check_events(read, {first, second, kThreeEvents[1]}, {1, start, start + second.size() + 1});
  }
}

TEST_CASE("values that begin, end or are named across the chunk boundary are read whole",
          "[unit]") {
  // A member before traceEvents ends so that the first byte of the second
  // chunk is: its closing quote (shift 0), the ',' (1), the key's opening
  // quote (3), inside the key (4, 8), the key's closing quote (15), the ':'
  // (16), the '[' (18), the first event's '{' (19) or inside it (20, 24).
  for (const std::size_t shift : {0, 1, 3, 4, 8, 15, 16, 18, 19, 20, 24}) {
    INFO("shift " << shift);
    const std::string head = "{\"otherData\": \"";
    const std::size_t fill = kChunk - head.size() - shift;  // its closing quote: kChunk - shift
    const std::string other = std::string(fill, 'o');
    const std::string prefix = head + other + "\", \"traceEvents\": [";
    const std::vector<std::string> events = {kThreeEvents[0], kThreeEvents[1]};
    const std::string text = prefix + events[0] + "," + events[1] + "]}";
    const Read read = read_text(text);
    REQUIRE(read.members.size() == 1);
    CHECK(read.members[0].first == "otherData");
    CHECK(read.members[0].second.size() == fill + 2);
    check_events(read, events, offsets_of(events, prefix.size(), 1));
  }
}

TEST_CASE("an event ending exactly at the chunk boundary is followed by the next", "[unit]") {
  const std::string open = R"({"ph": "X", "name": ")";
  for (std::size_t extra = 0; extra < 3; ++extra) {
    INFO("extra " << extra);
    // The event's '}' is the byte before the last of the first chunk (extra
    // 0), its last byte (1) or the first of the second chunk (2).
    const std::string event =
        open + std::string(kChunk - 1 - open.size() - 2 - 1 + extra, 'z') + "\"}";
    const std::string text = "[" + event + "," + kThreeEvents[0] + "]";
    const Read read = read_text(text);
    check_events(read, {event, kThreeEvents[0]}, {1, 1 + event.size() + 1});
  }
}

TEST_CASE("a gzip-compressed document gives the same events as the plain one", "[unit]") {
  const std::string big = std::string(5 << 20, 'g');
  const std::vector<std::string> events = {
      kThreeEvents[0], R"({"ph": "X", "name": "big", "args": {"s": ")" + big + R"("}})",
      kThreeEvents[1], kThreeEvents[2]};
  std::string text = "{\"traceEvents\": [";
  for (std::size_t i = 0; i < events.size(); ++i) text += (i ? ",\n" : "") + events[i];
  text += "], \"schemaVersion\": 1}";
  TempDir dir;
  write_file(dir / "trace.json", text);
  write_gzip(dir / "trace.json.gz", text);
  const Read plain = read_file(dir / "trace.json");
  const Read compressed = read_file(dir / "trace.json.gz");
  check_events(compressed, events, offsets_of(events, 17, 2));
  CHECK(compressed.events == plain.events);
  CHECK(compressed.members == plain.members);
  CHECK(compressed.result.object_format);
  CHECK(compressed.result.document_bytes == text.size());
}

TEST_CASE("progress reports the bytes of the file read so far", "[unit]") {
  TempDir dir;
  const std::string text = "[" + kThreeEvents[0] + "]";
  write_file(dir / "trace.json", text);
  std::vector<std::uint64_t> progress;
  JsonStreamCallbacks callbacks;
  callbacks.on_progress = [&](std::uint64_t bytes) { progress.push_back(bytes); };
  read_chrome_json(dir / "trace.json", callbacks);
  REQUIRE_FALSE(progress.empty());
  CHECK(progress.back() == text.size());
}

TEST_CASE("malformed documents are refused with the byte offset where they go wrong", "[unit]") {
  const std::string event = kThreeEvents[0];
  SECTION("the file is empty") { expect_refused("", "the file is empty", 0); }
  SECTION("only whitespace") { expect_refused("  \n", "the file is empty", 3); }
  SECTION("the first byte is not { or [") {
    expect_refused("\x89PNG", "expected '{' or '['", 0);
    expect_refused("  hello", "expected '{' or '['", 2);
  }
  SECTION("truncated inside an event (Array Format)") {
    expect_refused("[" + event + ", " + event.substr(0, 20), "ends inside a value",
                   1 + event.size() + 2);
  }
  SECTION("truncated inside an event (Object Format)") {
    expect_refused("{\"traceEvents\": [" + event.substr(0, 30), "ends inside a value", 17);
  }
  SECTION("truncated inside a string") {
    expect_refused("{\"traceEvents\": [], \"x\": \"abc", "ends inside a value", 25);
  }
  SECTION("the Object Format without its final }") {
    const std::string text = "{\"traceEvents\": [" + event + "]";
    expect_refused(text, "ends inside the top-level object", text.size());
    expect_refused(text + "\n", "ends inside the top-level object", text.size() + 1);
  }
  SECTION("the Object Format's traceEvents without its ]") {
    const std::string text = "{\"traceEvents\": [" + event;
    expect_refused(text, "ends inside the event array", text.size());
    expect_refused(text + ",", "ends inside the event array", text.size() + 1);
  }
  SECTION("a member name not in quotes") {
    expect_refused("{traceEvents: []}", "expected a member name in quotes", 1);
    expect_refused("{\"traceEvents\": [], otherData: 1}", "expected a member name in quotes", 20);
  }
  SECTION("no ':' after a member name") {
    expect_refused("{\"traceEvents\" []}", "expected ':'", 15);
  }
  SECTION("traceEvents that is not an array") {
    expect_refused("{\"traceEvents\": {}}", "expected the traceEvents array", 16);
  }
  SECTION("an event that is not an object") {
    expect_refused("[" + event + ", 5]", "expected an event object", 1 + event.size() + 2);
    expect_refused("{\"traceEvents\": [\"x\"]}", "expected an event object", 17);
  }
  SECTION("no separator between events") {
    expect_refused("[" + event + " " + event + "]", "expected ',' or ']'", 1 + event.size() + 1);
  }
  SECTION("no separator between members") {
    expect_refused("{\"traceEvents\": [] \"a\": 1}", "expected ',' or '}'", 19);
  }
  SECTION("trailing garbage") {
    const std::string object = "{\"traceEvents\": [" + event + "]}";
    expect_refused(object + "\n x", "unexpected bytes after the end", object.size() + 2);
    const std::string array = "[" + event + "]";
    expect_refused(array + "]", "unexpected bytes after the end", array.size());
    expect_refused(array + " {}", "unexpected bytes after the end", array.size() + 1);
  }
}

TEST_CASE("an Object Format without traceEvents is refused", "[unit]") {
  TempDir dir;
  write_file(dir / "trace.json", "{\"schemaVersion\": 1}");
  try {
    read_file(dir / "trace.json");
    FAIL("accepted");
  } catch (const parity::Error& e) {
    CHECK_THAT(e.what_failed(), Catch::Contains("traceEvents"));
    CHECK_THAT(e.where(), Catch::Contains((dir / "trace.json").string()));
  }
}

TEST_CASE("a damaged gzip file is refused with the byte offset", "[unit]") {
  TempDir dir;
  std::string text = "{\"traceEvents\": [";
  for (int i = 0; i < 2000; ++i) text += (i ? "," : "") + kThreeEvents[i % 3];
  text += "]}";
  write_gzip(dir / "trace.json.gz", text);
  std::string bytes;
  {
    std::ifstream in(dir / "trace.json.gz", std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  SECTION("cut short") {
    write_file(dir / "cut.json.gz", bytes.substr(0, bytes.size() / 2));
    CHECK_THROWS_WITH(read_file(dir / "cut.json.gz"), Catch::Contains("at byte"));
  }
  SECTION("its deflate stream corrupted") {
    for (std::size_t i = 20; i < 60; ++i) bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
    write_file(dir / "bad.json.gz", bytes);
    CHECK_THROWS_WITH(read_file(dir / "bad.json.gz"), Catch::Contains("at byte"));
  }
}

TEST_CASE("a missing file is refused naming it", "[unit]") {
  TempDir dir;
  CHECK_THROWS_WITH(read_file(dir / "absent.json"), Catch::Contains("absent.json"));
}

TEST_CASE("a value of over 64 MiB is refused", "[unit]") {
  TempDir dir;
  const fs::path path = dir / "trace.json";
  {
    std::ofstream out(path, std::ios::binary);
    out << "[" << kThreeEvents[0] << R"(, {"ph": "X", "args": {"s": ")";
    const std::string block(1 << 20, 'm');
    for (int i = 0; i < 65; ++i) out << block;
    out << R"("}}])";
  }
  try {
    read_file(path);
    FAIL("accepted");
  } catch (const parity::Error& e) {
    CHECK_THAT(e.what_failed(), Catch::Contains("over 64 MiB"));
    CHECK_THAT(e.what_failed(),
               Catch::Contains("at byte " + std::to_string(kThreeEvents[0].size() + 3)));
  }
}

// The scanner runs on a thread of its own and hands the events over in
// batches of about 1 MiB (chrome_json_pipeline.cpp); what the callbacks see
// must not show it.
TEST_CASE("events spread over many batches come in document order with their offsets", "[unit]") {
  std::vector<std::string> events;
  for (int i = 0; events.size() < 40000; ++i)
    events.push_back(R"({"ph": "X", "name": "op)" + std::to_string(i) + R"(", "ts": )" +
                     std::to_string(i) + R"(, "dur": 1, "pid": 1, "tid": 1,)" +
                     R"( "args": {"Input Dims": [[64, 512], [512, 512], [512]]}})");
  const std::string head = "{\"traceEvents\": [";
  std::string text = head;
  for (std::size_t i = 0; i < events.size(); ++i) text += (i ? ", " : "") + events[i];
  text += "], \"traceName\": \"many\"}";
  REQUIRE(text.size() > 4 * (std::size_t(1) << 20));  // over four batches
  const Read read = read_text(text);
  check_events(read, events, offsets_of(events, head.size(), 2));
  CHECK(read.members ==
        std::vector<std::pair<std::string, std::string>>{{"traceName", "\"many\""}});
}

TEST_CASE("an error in a callback stops the reading and comes out as it was thrown", "[unit]") {
  TempDir dir;
  std::string text = "[";
  for (int i = 0; i < 100000; ++i) text += (i ? ", " : "") + kThreeEvents[0];
  write_file(dir / "trace.json", text + "]");
  int seen = 0;
  JsonStreamCallbacks callbacks;
  callbacks.on_event = [&](const RawJsonValue&) {
    if (++seen == 5000) throw parity::Error("planted", "event 5000", "none");
  };
  CHECK_THROWS_WITH(read_chrome_json(dir / "trace.json", callbacks), Catch::Contains("planted"));
  CHECK(seen == 5000);
}

TEST_CASE("a document that goes wrong late hands over every event before the error", "[unit]") {
  std::vector<std::string> events(30000, kThreeEvents[1]);
  std::string text = "[";
  for (std::size_t i = 0; i < events.size(); ++i) text += (i ? ", " : "") + events[i];
  const std::size_t broken_at = text.size() + 2;
  text += ", {\"ph\": ";  // truncated inside the next event
  TempDir dir;
  write_file(dir / "trace.json", text);
  std::size_t seen = 0;
  JsonStreamCallbacks callbacks;
  callbacks.on_event = [&](const RawJsonValue&) { ++seen; };
  try {
    read_chrome_json(dir / "trace.json", callbacks);
    FAIL("a truncated document was accepted");
  } catch (const parity::Error& e) {
    CHECK_THAT(e.what_failed(), Catch::Contains("at byte " + std::to_string(broken_at)));
  }
  CHECK(seen == events.size());
}
