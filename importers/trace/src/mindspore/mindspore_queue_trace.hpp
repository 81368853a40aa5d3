// MindData's data-queue trace, device_queue_profiling_<rank>.txt (sink mode)
// or dataset_iterator_profiling_<rank>.txt: one record a line, "type
// extra_info batch_num value [timestamp]", space-separated whole numbers.
// Type 0 records a time in ms (extra_info 0 pipeline, 1 push, 2 batch);
// type 1 the queue as the batch was taken (extra_info its capacity, value its
// depth). The timestamp is MindData's steady clock in ms.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parity::importers::trace {

enum class QueueRecordType : std::int64_t { kTime = 0, kConnector = 1 };
enum class QueueTimeKind : std::int64_t { kPipeline = 0, kPush = 1, kBatch = 2 };

struct QueueRecord {
  QueueRecordType type = QueueRecordType::kTime;
  std::int64_t extra_info = 0;               // the time's kind, or the queue's capacity
  std::int64_t batch = 0;                    // 1-based
  std::int64_t value = 0;                    // ms, or the queue's depth
  std::optional<std::int64_t> timestamp_ms;  // absent in the earliest (4-field) form
  std::size_t line = 0;
};

// Throws parity::Error naming `where` and the line for a line that is not
// such a record (a field missing or not a number, an unknown type).
std::vector<QueueRecord> parse_queue_trace(std::string_view text, const std::string& where);

}  // namespace parity::importers::trace
