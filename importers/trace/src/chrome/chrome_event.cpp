#include "chrome/chrome_event.hpp"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include "parity/core/error.hpp"

namespace parity::importers::trace {
namespace {

namespace od = simdjson::ondemand;

std::string_view trim(std::string_view text) {
  while (!text.empty() &&
         (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' || text.back() == '\t'))
    text.remove_suffix(1);
  return text;
}

std::optional<std::int64_t> integer_of(od::value value) {
  std::int64_t number = 0;
  if (value.get_int64().get(number) == simdjson::SUCCESS) return number;
  double real = 0;
  if (value.get_double().get(real) == simdjson::SUCCESS && std::isfinite(real))
    return static_cast<std::int64_t>(std::llround(real));
  return std::nullopt;
}

std::optional<double> real_of(od::value value) {
  double real = 0;
  if (value.get_double().get(real) == simdjson::SUCCESS) return real;
  return std::nullopt;
}

// Microseconds, as a number or (in some writers) a string of one.
std::optional<std::int64_t> time_of(od::value value) {
  od::json_type type;
  if (value.type().get(type) != simdjson::SUCCESS) return std::nullopt;
  if (type == od::json_type::number) return microseconds_text_to_ns(trim(value.raw_json_token()));
  std::string_view text;
  if (type == od::json_type::string && value.get_string().get(text) == simdjson::SUCCESS)
    return microseconds_text_to_ns(text);
  return std::nullopt;
}

LaneId lane_of(od::value value) {
  LaneId lane;
  od::json_type type;
  if (value.type().get(type) != simdjson::SUCCESS) return lane;
  if (type == od::json_type::string) {
    lane.is_text = value.get_string().get(lane.text) == simdjson::SUCCESS;
  } else if (const auto number = integer_of(value)) {
    lane.number = *number;
  }
  return lane;
}

std::optional<std::array<std::uint32_t, 3>> dims_of(od::value value) {
  od::array array;
  if (value.get_array().get(array) != simdjson::SUCCESS) return std::nullopt;
  std::array<std::uint32_t, 3> dims{1, 1, 1};
  std::size_t i = 0;
  for (auto element : array) {
    std::uint64_t number = 0;
    if (element.get_uint64().get(number) != simdjson::SUCCESS || i == 3) return std::nullopt;
    dims[i++] = static_cast<std::uint32_t>(number);
  }
  return dims;
}

// The number of elements of the first shape of "Input Dims": [[4, 8], [8]].
std::optional<std::int64_t> first_shape_elements(od::value value) {
  od::array shapes, dims;
  if (value.get_array().get(shapes) != simdjson::SUCCESS) return std::nullopt;
  for (auto shape : shapes) {
    if (shape.get_array().get(dims) != simdjson::SUCCESS) return std::nullopt;
    std::int64_t elements = 1;
    for (auto dim : dims) {
      std::int64_t extent = 0;
      if (dim.get_int64().get(extent) != simdjson::SUCCESS || extent < 0) return std::nullopt;
      elements *= extent;
    }
    return elements;
  }
  return std::nullopt;
}

std::string_view first_string(od::value value) {
  od::array items;
  std::string_view text;
  if (value.get_array().get(items) != simdjson::SUCCESS) return {};
  for (auto item : items) return item.get_string().get(text) == simdjson::SUCCESS ? text : "";
  return {};
}

void read_args(od::object args, ChromeEvent& event) {
  for (auto field : args) {
    std::string_view key;
    if (field.unescaped_key().get(key) != simdjson::SUCCESS) continue;
    od::value value = field.value();
    if (event.phase == 'C') {
      if (const auto real = real_of(value)) event.counter_values.emplace_back(key, *real);
    } else if (key == "correlation") {
      event.correlation = integer_of(value);
    } else if (key == "device") {
      event.device = integer_of(value);
    } else if (key == "stream") {
      event.stream = integer_of(value);
    } else if (key == "bytes") {
      event.bytes = integer_of(value);
    } else if (key == "registers per thread") {
      event.registers = integer_of(value);
    } else if (key == "shared memory") {
      event.shared_memory = integer_of(value);
    } else if (key == "grid") {
      event.grid = dims_of(value);
    } else if (key == "block") {
      event.block = dims_of(value);
    } else if (key == "Total Allocated") {
      event.total_allocated = real_of(value);
    } else if (key == "Device Type") {
      event.device_type = integer_of(value);
    } else if (key == "Device Id") {
      event.device_id = integer_of(value);
    } else if (key == "Input Dims") {
      event.input_elements = first_shape_elements(value);
    } else if (key == "Input type") {
      event.input_type = first_string(value);
    } else if (key == "In msg nelems") {
      event.input_elements = integer_of(value);
    } else if (key == "dtype") {
      if (value.get_string().get(event.input_type) != simdjson::SUCCESS) event.input_type = {};
    } else if (key == "fullname") {
      if (value.get_string().get(event.full_name) != simdjson::SUCCESS) event.full_name = {};
    } else if (key == "count") {
      event.element_count = integer_of(value);
    } else if (key == "data_type") {
      if (value.get_string().get(event.data_type) != simdjson::SUCCESS) event.data_type = {};
    } else if (key == "Task Type") {
      if (value.get_string().get(event.task_type) != simdjson::SUCCESS) event.task_type = {};
    } else if (key == "name" && event.phase == 'M') {
      if (value.get_string().get(event.label) != simdjson::SUCCESS) event.label = {};
    }
  }
}

// Reads the object's fields into `event`; returns true where args came before
// ph and were passed over (what args hold depends on ph: 'C' counters, 'M'
// labels).
template <class Refuse>
bool read_fields(od::object object, ChromeEvent& event, const Refuse& refuse) {
  bool args_pending = false;
  for (auto field : object) {
    std::string_view key;
    if (field.unescaped_key().get(key) != simdjson::SUCCESS) refuse("is not valid JSON");
    od::value member;
    if (field.value().get(member) != simdjson::SUCCESS) refuse("is not valid JSON");
    if (key == "ph") {
      std::string_view phase;
      if (member.get_string().get(phase) != simdjson::SUCCESS || phase.size() != 1)
        refuse("has a \"ph\" that is not one letter");
      event.phase = phase[0];
    } else if (key == "name") {
      if (member.get_string().get(event.name) != simdjson::SUCCESS) event.name = {};
    } else if (key == "cat") {
      if (member.get_string().get(event.category) != simdjson::SUCCESS) event.category = {};
    } else if (key == "pid") {
      event.pid = lane_of(member);
    } else if (key == "tid") {
      event.tid = lane_of(member);
    } else if (key == "ts") {
      event.ts_ns = time_of(member);
      if (!event.ts_ns) refuse("has a \"ts\" that is not a number of microseconds");
    } else if (key == "dur") {
      event.dur_ns = time_of(member);
      if (!event.dur_ns || *event.dur_ns < 0)
        refuse("has a \"dur\" that is not a number of microseconds >= 0");
    } else if (key == "args") {
      od::object found;
      if (member.get_object().get(found) != simdjson::SUCCESS) continue;
      if (event.phase != 0)
        read_args(found, event);
      else
        args_pending = true;
    }
  }
  return args_pending;
}

}  // namespace

std::optional<std::int64_t> microseconds_text_to_ns(std::string_view text) {
  bool negative = false;
  if (!text.empty() && text.front() == '-') {
    negative = true;
    text.remove_prefix(1);
  }
  // 1.7e15: rare, read as a double. (A loop: find_first_of calls memchr per character.)
  const bool exponent =
      std::any_of(text.begin(), text.end(), [](char c) { return c == 'e' || c == 'E'; });
  if (exponent) {
    double micros = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), micros);
    if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(micros) ||
        std::fabs(micros) >= 9.2e15)
      return std::nullopt;
    const auto ns = static_cast<std::int64_t>(std::llround(micros * 1000));
    return negative ? -ns : ns;
  }
  const std::size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  std::string_view fraction = dot == std::string_view::npos ? "" : text.substr(dot + 1);
  std::int64_t micros = 0;
  if (whole.empty() || whole.front() < '0' || whole.front() > '9') return std::nullopt;
  const auto [end, error] = std::from_chars(whole.data(), whole.data() + whole.size(), micros);
  // Up to 9.2e15 us (year 2262 on the Unix epoch): the ns must fit an int64.
  if (error != std::errc() || end != whole.data() + whole.size() ||
      micros > std::numeric_limits<std::int64_t>::max() / 1000 - 1)
    return std::nullopt;
  std::int64_t nanos = 0;
  for (std::size_t i = 0; i < fraction.size(); ++i) {
    const char c = fraction[i];
    if (c < '0' || c > '9') return std::nullopt;
    if (i < 3) nanos = nanos * 10 + (c - '0');
    if (i == 3 && c >= '5') ++nanos;  // round to the nearest ns
  }
  for (std::size_t i = fraction.size(); i < 3; ++i) nanos *= 10;
  const std::int64_t ns = micros * 1000 + nanos;
  return negative ? -ns : ns;
}

struct ChromeEventParser::Impl {
  od::parser parser;
  ChromeEvent event;
};

ChromeEventParser::ChromeEventParser() : impl_(new Impl) {}
ChromeEventParser::~ChromeEventParser() { delete impl_; }

const ChromeEvent& ChromeEventParser::parse(const RawJsonValue& value, const std::string& where) {
  ChromeEvent& event = impl_->event;
  event = ChromeEvent{};
  const auto refuse = [&](const std::string& why) -> const ChromeEvent& {
    throw Error("the event at byte " + std::to_string(value.offset) + " " + why, where,
                "the file may be corrupt; each event is a JSON object like "
                "{\"ph\": \"X\", \"name\": ..., \"ts\": ..., \"dur\": ...}");
  };
  const simdjson::padded_string_view text(value.text.data(), value.text.size(),
                                          value.text.size() + kValuePadding);
  od::document document;
  if (impl_->parser.iterate(text).get(document) != simdjson::SUCCESS)
    return refuse("is not valid JSON");
  od::object object;
  if (document.get_object().get(object) != simdjson::SUCCESS) return refuse("is not an object");
  // On Demand reads forward only: where args came before ph, rewind and read
  // the whole object again, ph now known (string views of the first pass do
  // not survive a rewind).
  if (read_fields(object, event, refuse)) {
    document.rewind();
    const char phase = event.phase;
    event = ChromeEvent{};
    event.phase = phase;
    if (document.get_object().get(object) != simdjson::SUCCESS) return refuse("is not an object");
    read_fields(object, event, refuse);
  }
  if (event.phase == 0) return refuse("has no \"ph\"");
  return event;
}

}  // namespace parity::importers::trace
