// Exports a trace database as Chrome trace-event JSON (chrome://tracing,
// Perfetto UI): nested complete events per track, counters and queue depths
// as counter events, instants, and flow arrows from each launch API call to
// the GPU work with the same correlation id. Streams row by row: memory stays
// bounded by the string table, whatever the trace's size.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>

#include "parity/profiler/trace_reader.hpp"

namespace parity::profiler {

struct ChromeExportStats {
  std::uint64_t events = 0;  // trace events written, metadata included
  std::uint64_t flows = 0;   // launch -> GPU work arrows
};

// `progress` (optional) is called with the fraction of rows written so far.
ChromeExportStats export_chrome_trace(TraceReader& trace, std::ostream& out,
                                      const std::function<void(double)>& progress = {});

}  // namespace parity::profiler
