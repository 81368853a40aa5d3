// Device idle analysis: on every GPU stream, the time within the steady-state
// steps (step_analysis.hpp; not the time between them: checkpoints,
// evaluation) when the stream ran nothing, attributed to what the host was
// doing meanwhile:
//   data           the host was in its data_wait phase;
//   communication  a collective was in flight (and the host was not waiting on data);
//   host           anything else: the device waited for the host to queue work.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parity/analyzer/profile/step_analysis.hpp"
#include "parity/analyzer/profile/trace_data.hpp"

namespace parity::analyzer {

enum class IdleCause { kHost, kData, kCommunication };
inline constexpr std::size_t kIdleCauses = 3;
std::string_view idle_cause_name(IdleCause cause);

struct IdleGap {
  std::int64_t start_ns = 0, dur_ns = 0;
  std::int64_t step = kNoStep;
  IdleCause cause = IdleCause::kHost;  // the cause of most of the gap
};

struct IdleTrack {
  std::string track;
  std::int64_t window_ns = 0;  // the steady-state steps' time
  std::int64_t busy_ns = 0, idle_ns = 0;
  std::array<std::int64_t, kIdleCauses> idle_by_cause{};
  std::vector<IdleGap> longest;  // the longest gaps, longest first
};
inline constexpr std::size_t kLongestGaps = 5;

// One entry per GPU stream track with activity; empty for a CPU-only trace.
std::vector<IdleTrack> analyze_idle(const TraceData& trace, const StepAnalysis& steps);

}  // namespace parity::analyzer
