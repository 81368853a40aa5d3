#include "mindspore/mindspore_queue_rows.hpp"

#include <algorithm>

namespace parity::importers::trace {

void add_queue_samples(const std::vector<QueueRecord>& records,
                       const std::map<std::int64_t, std::int64_t>& step_starts,
                       TrackId consumer_thread, TraceAssembly& assembly, ImportSummary& summary) {
  std::map<std::int64_t, std::int64_t> pipeline_ms;  // per batch
  for (const QueueRecord& record : records)
    if (record.type == QueueRecordType::kTime &&
        record.extra_info == static_cast<std::int64_t>(QueueTimeKind::kPipeline))
      pipeline_ms[record.batch] = record.value;
  const TrackId queue = assembly.track("device_queue", profiler::TrackKind::kQueue);
  for (const QueueRecord& record : records) {
    if (record.type == QueueRecordType::kTime) {
      ++summary.not_imported
            ["queue time records (pipeline, push, batch ms: kept only as the wait of a get that "
             "found the queue empty)"];
      continue;
    }
    const auto step = step_starts.find(record.batch);
    if (step == step_starts.end()) {
      ++summary.not_imported["queue records of batches with no step in the step trace"];
      continue;
    }
    profiler::QueueSampleRow row;
    row.track = queue;
    row.ts_ns = step->second;
    row.depth = static_cast<std::uint32_t>(std::max<std::int64_t>(0, record.value));
    row.capacity = static_cast<std::uint32_t>(std::max<std::int64_t>(0, record.extra_info));
    row.role = profiler::QueueRole::kConsumer;
    row.thread_track = consumer_thread;
    if (row.depth == 0) {
      const auto wait = pipeline_ms.find(record.batch);
      // Clamped: a corrupt time must not overflow (an hour is past any real wait).
      constexpr std::int64_t kMsPerHour = 3'600'000;
      if (wait != pipeline_ms.end())
        row.wait_ns = std::clamp<std::int64_t>(wait->second, 0, kMsPerHour) * 1'000'000;
    }
    assembly.add_queue_sample(row);
    ++summary.imported["queue samples (device queue)"];
  }
}

}  // namespace parity::importers::trace
