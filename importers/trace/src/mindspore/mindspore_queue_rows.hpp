// MindData's data-queue trace as queue samples on a track "device_queue":
// each connector record (the queue's depth and capacity as a batch was
// taken) at the start of the step that batch fed, since MindData's steady
// clock in ms shares no origin with the device's. A get that found the queue
// empty waits the batch's pipeline time.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "mindspore/mindspore_queue_trace.hpp"
#include "parity/importers/trace/trace_import.hpp"
#include "trace_assembly.hpp"

namespace parity::importers::trace {

// `step_starts`: step number -> its start, on the trace's clock.
void add_queue_samples(const std::vector<QueueRecord>& records,
                       const std::map<std::int64_t, std::int64_t>& step_starts,
                       TrackId consumer_thread, TraceAssembly& assembly, ImportSummary& summary);

}  // namespace parity::importers::trace
