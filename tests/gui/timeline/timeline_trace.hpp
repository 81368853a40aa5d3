// A small trace with every kind of lane and known contents, written with the
// profiler's TraceWriter, for the timeline's tests:
//
//   main thread   3 steps of 1 ms; phases forward [0, 400 µs) and backward
//                 [400, 900 µs) of each; 4 "conv" ops of 50 µs every 100 µs
//                 in forward, each launching a kernel (cudaLaunchKernel,
//                 10 µs after the op starts, 5 µs long)
//   GPU stream    the 12 kernels ("conv_kernel", 40 µs, 30 µs after their
//                 op) plus one "overlap_kernel" overlapping the first
//   collective    one allreduce of 80 µs at 900 µs into each step
//   loss          a counter sample at each step's end: 3, 2, 1
//   queue         depth samples 0, 1, 2, 3 at 0, 1, 2, 3 ms
#pragma once

#include <cstdint>
#include <filesystem>

namespace timeline_trace {

inline constexpr std::int64_t kSteps = 3;
inline constexpr std::int64_t kStepNs = 1'000'000;
inline constexpr std::int64_t kOpsPerStep = 4;
inline constexpr std::int64_t kOpNs = 50'000;
inline constexpr std::int64_t kKernelNs = 40'000;
// Rows in the event tables: ranges (3 steps + 6 phases + 12 ops), 12 API
// calls, 13 kernels, 3 collectives, 3 counter samples, 4 queue samples.
inline constexpr std::int64_t kEvents = 21 + 12 + 13 + 3 + 3 + 4;

void write(const std::filesystem::path& path);

}  // namespace timeline_trace
