// A small trace with rows of every kind, written through TraceWriter, for the
// schema round trip, exporter and CLI tests.
#pragma once

#include <filesystem>

#include "parity/profiler/trace_rows.hpp"

namespace fixture {

// What write_sample_trace() puts in the trace.
inline constexpr int kSteps = 3;
inline constexpr int kLayersPerStep = 4;       // each with 2 ops inside
inline constexpr int kRangesPerStep = 1 + kLayersPerStep * 3;
inline constexpr int kKernelsPerStep = 5;      // each launched by one api call
inline constexpr int kMemcpyPerStep = 1;       // not launched by an api call we saw

// Track ids used by the fixture.
inline constexpr parity::profiler::TrackId kMainThread = 1, kLoaderThread = 2, kStream = 3,
                                           kLossCounter = 4, kQueue = 5, kLane = 6;

void write_sample_trace(const std::filesystem::path& path);

}  // namespace fixture
