// A small trace with every number chosen by hand, so the analysis of it can
// be checked against arithmetic done on paper (and kept as a golden report).
//
// Four steps, 12 ms apart; step 0 lasts 11 ms (warm-up), steps 1-3 10 ms.
// Inside a steady step (times from its start, ms):
//   data_wait [0, 1)  forward [1, 4)  backward [4, 8)  optimizer [8, 9.5)  nothing [9.5, 10)
//   allreduce [7, 9) on the collective lane: 1 ms under backward, 1 ms under the optimizer
// Step 0 is the same shifted by 1 ms after a 2 ms data wait.
// Steady breakdown: data_wait 1, forward 3, backward 4, optimizer 0.5,
// communication 1, other 0.5 ms.
// Ops: forward conv1 > conv2d 1.8 ms, fc > linear 0.8 ms + reorder 50 us;
// backward fc > linear_backward 0.8 ms, conv1 > conv2d_backward 2.8 ms.
// Each op launches one kernel (half the op's duration) 10 us after the op
// starts, through a 5 us API call; the kernel starts 20 us after the call ends.
// Queue "train": consumer gets after each data wait; steps 0 and 1 waited
// the whole data wait, steps 2 and 3 5 us; a producer put 3 ms before each
// step starts (the first before any step, the second in step 0). Loss scale
// drops once.
// Outside the steps: a 1 ms reorder op at 2 ms and a 0.5 ms one at 44.5 ms
// (between steps 2 and 3), each launching a kernel, and a 1 ms broadcast at
// 4 ms. The analyses count only what starts in the steady steps 1-3
// ([22, 32), [34, 44), [46, 56) ms, 30 ms in all).
#pragma once

#include <cstdint>
#include <filesystem>

namespace small_trace {

inline constexpr std::int64_t kMs = 1'000'000;
inline constexpr std::int64_t kFirstStepStart = 10 * kMs;
inline constexpr std::int64_t kStepPeriod = 12 * kMs;
inline constexpr int kSteps = 4;
inline constexpr std::int64_t kWorldSize = 4;
inline constexpr std::int64_t kAllReduceBytes = 8'000'000;

// Writes the trace; `rank` goes into meta.
void write(const std::filesystem::path& path, std::int64_t rank = 0);

}  // namespace small_trace
