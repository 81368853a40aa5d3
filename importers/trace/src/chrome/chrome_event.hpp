// One event of a Chrome trace-event document, with the fields and args the
// importers use (the PyTorch profiler's and Kineto's among them), parsed in
// place with simdjson. Text fields are views into the parser's buffer: valid
// until the next event is parsed.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "json/chrome_json_stream.hpp"

namespace parity::importers::trace {

// A pid or tid: Chrome traces use numbers, and text ("CPU functions",
// "Spans", "stream 7") where a lane is not an OS process or thread.
struct LaneId {
  std::int64_t number = 0;
  std::string_view text;
  bool is_text = false;
};

struct ChromeEvent {
  char phase = 0;  // ph: 'X' complete, 'B'/'E' begin/end, 'i'/'I' instant, 'M' metadata, 'C'
                   // counter, 's'/'t'/'f' flow
  std::string_view category, name;  // cat (empty where absent), name
  LaneId pid, tid;
  std::optional<std::int64_t> ts_ns, dur_ns;  // microseconds in the file, exact to the ns
  // args that Kineto writes
  std::optional<std::int64_t> correlation, device, stream, bytes, registers, shared_memory;
  std::optional<std::array<std::uint32_t, 3>> grid, block;
  std::optional<double> total_allocated;    // [memory] instants
  std::optional<std::int64_t> device_type;  // [memory] instants: 0 CPU, 1 CUDA
  std::optional<std::int64_t> device_id;    // [memory] instants
  std::string_view label;                   // 'M' events: args.name
  // record_shapes: the elements of the first input ("Input Dims"), and its
  // type ("Input type"); record_param_comms' "In msg nelems" and "dtype"
  std::optional<std::int64_t> input_elements;
  std::string_view input_type;
  std::vector<std::pair<std::string_view, double>> counter_values;  // 'C' events: args
  // MindSpore's and CANN's args: the op's scoped name ("Gradients/Default/.../
  // ReluGrad-op3"); an HCCL op's element count and type ("FP32"); an Ascend
  // hardware task's type ("AI_CORE", "SDMA_SQE")
  std::string_view full_name;
  std::optional<std::int64_t> element_count;
  std::string_view data_type, task_type;
};

class ChromeEventParser {
 public:
  ChromeEventParser();
  ~ChromeEventParser();
  ChromeEventParser(const ChromeEventParser&) = delete;
  ChromeEventParser& operator=(const ChromeEventParser&) = delete;

  // Parses one event; throws parity::Error naming `where` and the event's
  // byte offset for text that is not a JSON object with sensible fields.
  const ChromeEvent& parse(const RawJsonValue& value, const std::string& where);

 private:
  struct Impl;
  Impl* impl_;
};

// "1712195495519689.123" microseconds -> nanoseconds, exact; nullopt for
// text that is not a plain decimal number.
std::optional<std::int64_t> microseconds_text_to_ns(std::string_view text);

}  // namespace parity::importers::trace
