// One Chrome trace event parsed in place: Kineto's fields and args, exact
// nanosecond times from the microsecond text, and refusals that name the
// event's byte offset.
#include "chrome/chrome_event.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "parity/core/error.hpp"

using parity::importers::trace::ChromeEvent;
using parity::importers::trace::ChromeEventParser;
using parity::importers::trace::kValuePadding;
using parity::importers::trace::microseconds_text_to_ns;
using parity::importers::trace::RawJsonValue;

namespace {

constexpr const char* kWhere = "trace.json";

// The text with the padding the parser may read past its end, as the stream gives it.
struct PaddedEvent {
  explicit PaddedEvent(std::string json, std::uint64_t offset = 0)
      : text(std::move(json)), value{} {
    const std::size_t size = text.size();
    text.append(kValuePadding, ' ');
    value = RawJsonValue{std::string_view(text.data(), size), offset};
  }
  std::string text;
  RawJsonValue value;
};

const ChromeEvent& parse(ChromeEventParser& parser, const PaddedEvent& event) {
  return parser.parse(event.value, kWhere);
}

void expect_refused(const std::string& json, const std::string& why) {
  ChromeEventParser parser;
  const PaddedEvent event(json, 1234);
  try {
    parser.parse(event.value, kWhere);
    FAIL("accepted: " << json);
  } catch (const parity::Error& e) {
    INFO(e.what());
    CHECK_THAT(e.what_failed(), Catch::Contains("at byte 1234"));
    CHECK_THAT(e.what_failed(), Catch::Contains(why));
    CHECK(e.where() == kWhere);
    CHECK_FALSE(e.hint().empty());
  }
}

}  // namespace

TEST_CASE("microseconds text becomes nanoseconds exactly", "[unit]") {
  CHECK(microseconds_text_to_ns("238") == 238000);
  CHECK(microseconds_text_to_ns("1.5") == 1500);
  CHECK(microseconds_text_to_ns("0") == 0);
  CHECK(microseconds_text_to_ns("0.001") == 1);
  CHECK(microseconds_text_to_ns("12.345") == 12345);
  CHECK(microseconds_text_to_ns("-2.25") == -2250);
  CHECK(microseconds_text_to_ns("4.50") == 4500);
  CHECK(microseconds_text_to_ns("999999999999999.999") == 999999999999999999);
}

TEST_CASE("microseconds text of Unix-epoch times becomes nanoseconds exactly", "[unit]") {
  // Kineto's time stamps: 16 digits of microseconds, more than a double holds to the ns.
  CHECK(microseconds_text_to_ns("1712195495519689.123") == 1712195495519689123);
  CHECK(microseconds_text_to_ns("1712195495505583.0") == 1712195495505583000);
  CHECK(microseconds_text_to_ns("1712195495505583") == 1712195495505583000);
}

TEST_CASE("microseconds text rounds to the nearest nanosecond", "[unit]") {
  CHECK(microseconds_text_to_ns("0.0005") == 1);
  CHECK(microseconds_text_to_ns("0.0004999") == 0);
  CHECK(microseconds_text_to_ns("1.2345678") == 1235);
  CHECK(microseconds_text_to_ns("0.9995") == 1000);
  CHECK(microseconds_text_to_ns("-0.0005") == -1);
}

TEST_CASE("text that is not a plain decimal number of microseconds gives no time", "[unit]") {
  for (const char* bad : {"", "-", ".5", "abc", "1.2.3", "1x", "1.5x", "0x10", " 1", "1 ", "+1",
                          "--5", "- 5", "1.-5", "99999999999999999999"}) {
    INFO("'" << bad << "'");
    CHECK_FALSE(microseconds_text_to_ns(bad).has_value());
  }
}

TEST_CASE("a Kineto kernel event gives its times, lane and launch", "[unit]") {
  ChromeEventParser parser;
  const PaddedEvent text(
      R"j({"ph": "X", "cat": "kernel", "name": "void k()", "pid": 0, "tid": 7, )j"
      R"j("ts": 1712195495505583.0, "dur": 4.5, "args": {"External id": 1, "device": 0, )j"
      R"j("stream": 7, "correlation": 135071, "registers per thread": 20, "shared memory": 0, )j"
      R"j("grid": [110, 1, 1], "block": [128, 1, 1]}})j");
  const ChromeEvent& event = parse(parser, text);
  CHECK(event.phase == 'X');
  CHECK(event.category == "kernel");
  CHECK(event.name == "void k()");
  CHECK_FALSE(event.pid.is_text);
  CHECK(event.pid.number == 0);
  CHECK(event.tid.number == 7);
  CHECK(event.ts_ns == 1712195495505583000);
  CHECK(event.dur_ns == 4500);
  CHECK(event.device == 0);
  CHECK(event.stream == 7);
  CHECK(event.correlation == 135071);
  CHECK(event.registers == 20);
  CHECK(event.shared_memory == 0);
  REQUIRE(event.grid);
  CHECK(*event.grid == std::array<std::uint32_t, 3>{110, 1, 1});
  REQUIRE(event.block);
  CHECK(*event.block == std::array<std::uint32_t, 3>{128, 1, 1});
  CHECK_FALSE(event.bytes);
  CHECK(event.label.empty());
  CHECK(event.counter_values.empty());
}

TEST_CASE("a kernel event of small times parses the same fields", "[unit]") {
  ChromeEventParser parser;
  const PaddedEvent text(
      R"j({"ph": "X", "cat": "kernel", "name": "void k()", "pid": 0, "tid": 7, )j"
      R"j("ts": 505583.25, "dur": 4.5, "args": {"device": 1, "stream": 7, "correlation": 3, )j"
      R"j("grid": [2, 3], "block": [128, 1, 1]}})j");
  const ChromeEvent& event = parse(parser, text);
  CHECK(event.ts_ns == 505583250);
  CHECK(event.dur_ns == 4500);
  CHECK(event.device == 1);
  CHECK(event.correlation == 3);
  REQUIRE(event.grid);
  CHECK(*event.grid == std::array<std::uint32_t, 3>{2, 3, 1});  // missing dims are 1
}

TEST_CASE("a thread_name metadata event gives its label", "[unit]") {
  ChromeEventParser parser;
  const PaddedEvent text(R"j({"name": "thread_name", "ph": "M", "ts": 1, "pid": 1102, "tid": 7, )j"
                         R"j("args": {"name": "stream 7 "}})j");
  const ChromeEvent& event = parse(parser, text);
  CHECK(event.phase == 'M');
  CHECK(event.name == "thread_name");
  CHECK(event.pid.number == 1102);
  CHECK(event.tid.number == 7);
  CHECK(event.ts_ns == 1000);
  CHECK(event.label == "stream 7 ");
  CHECK_FALSE(event.dur_ns);
}

TEST_CASE("a [memory] instant gives the allocated bytes and the device", "[unit]") {
  ChromeEventParser parser;
  const PaddedEvent text(
      R"j({"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 5, "tid": 5, )j"
      R"j("ts": 10, "args": {"Total Allocated": 4096, "Device Type": 1, "Device Id": 0}})j");
  const ChromeEvent& event = parse(parser, text);
  CHECK(event.phase == 'i');
  CHECK(event.category == "cpu_instant_event");
  CHECK(event.name == "[memory]");
  CHECK(event.ts_ns == 10000);
  CHECK(event.total_allocated == 4096.0);
  CHECK(event.device_type == 1);
  CHECK(event.device_id == 0);
}

TEST_CASE("a counter event gives each of its args as a value", "[unit]") {
  ChromeEventParser parser;
  const PaddedEvent text(R"j({"ph": "C", "name": "q", "pid": 1, "ts": 3, )j"
                         R"j("args": {"depth": 4, "cap": 8, "note": "text"}})j");
  const ChromeEvent& event = parse(parser, text);
  CHECK(event.phase == 'C');
  CHECK(event.name == "q");
  CHECK(event.ts_ns == 3000);
  using Values = std::vector<std::pair<std::string_view, double>>;
  CHECK(event.counter_values == Values{{"depth", 4.0}, {"cap", 8.0}});
  CHECK_FALSE(event.tid.is_text);
  CHECK(event.tid.number == 0);  // absent
}

TEST_CASE("a text pid or tid is kept as text", "[unit]") {
  ChromeEventParser parser;
  const PaddedEvent text(R"j({"ph": "X", "name": "f", "pid": "CPU functions", )j"
                         R"j("tid": "stream 7", "ts": "12.5", "dur": "1"})j");
  const ChromeEvent& event = parse(parser, text);
  CHECK(event.pid.is_text);
  CHECK(event.pid.text == "CPU functions");
  CHECK(event.tid.is_text);
  CHECK(event.tid.text == "stream 7");
  CHECK(event.ts_ns == 12500);  // times as strings, as some writers give them
  CHECK(event.dur_ns == 1000);
}

TEST_CASE("args before ph are read by the event's phase", "[unit]") {
  ChromeEventParser parser;
  SECTION("metadata") {
    const PaddedEvent text(R"j({"args": {"name": "main thread"}, "pid": 3, "tid": 4, )j"
                           R"j("name": "thread_name", "ph": "M"})j");
    const ChromeEvent& event = parse(parser, text);
    CHECK(event.phase == 'M');
    CHECK(event.name == "thread_name");
    CHECK(event.label == "main thread");
    CHECK(event.pid.number == 3);
    CHECK(event.tid.number == 4);
  }
  SECTION("counter") {
    const PaddedEvent text(R"j({"name": "c", "args": {"a": 1.5, "b": 2}, "ts": 7, "ph": "C"})j");
    const ChromeEvent& event = parse(parser, text);
    CHECK(event.phase == 'C');
    CHECK(event.ts_ns == 7000);
    using Values = std::vector<std::pair<std::string_view, double>>;
    CHECK(event.counter_values == Values{{"a", 1.5}, {"b", 2.0}});
  }
  SECTION("kernel") {
    const PaddedEvent text(R"j({"args": {"correlation": 9, "stream": 3}, "cat": "kernel", )j"
                           R"j("name": "k", "ts": 1, "dur": 2, "ph": "X"})j");
    const ChromeEvent& event = parse(parser, text);
    CHECK(event.phase == 'X');
    CHECK(event.correlation == 9);
    CHECK(event.stream == 3);
    CHECK(event.category == "kernel");
  }
}

TEST_CASE("one parser reads event after event, each from scratch", "[unit]") {
  ChromeEventParser parser;
  const PaddedEvent first(R"j({"ph": "X", "cat": "kernel", "name": "a", "ts": 1, "dur": 2, )j"
                          R"j("args": {"correlation": 5}})j");
  const PaddedEvent second(R"j({"ph": "B", "name": "b", "ts": 3})j");
  CHECK(parse(parser, first).correlation == 5);
  const ChromeEvent& event = parse(parser, second);
  CHECK(event.phase == 'B');
  CHECK(event.name == "b");
  CHECK(event.category.empty());
  CHECK_FALSE(event.correlation);
  CHECK_FALSE(event.dur_ns);
}

TEST_CASE("events that are not sensible objects are refused naming their byte offset", "[unit]") {
  SECTION("not an object") {
    expect_refused("[1, 2]", "is not an object");
    expect_refused("5", "is not an object");
  }
  SECTION("not JSON") { expect_refused(R"j({"ph": "X", "ts": })j", ""); }
  SECTION("no ph") { expect_refused(R"j({"name": "x", "ts": 1})j", "has no \"ph\""); }
  SECTION("a ph of more than one letter, or not text") {
    expect_refused(R"j({"ph": "XX", "ts": 1})j", "\"ph\"");
    expect_refused(R"j({"ph": 1, "ts": 1})j", "\"ph\"");
  }
  SECTION("ts as a bool") { expect_refused(R"j({"ph": "X", "ts": true, "dur": 1})j", "\"ts\""); }
  SECTION("ts as text that is not a number") {
    expect_refused(R"j({"ph": "X", "ts": "soon", "dur": 1})j", "\"ts\"");
  }
  SECTION("a negative dur") { expect_refused(R"j({"ph": "X", "ts": 1, "dur": -0.5})j", "\"dur\""); }
  SECTION("dur as null") { expect_refused(R"j({"ph": "X", "ts": 1, "dur": null})j", "\"dur\""); }
}
