// Operator analysis: host op ranges by op type, layer ranges by layer and
// phase, and GPU kernels by name with their launch and queue latency; of each
// only those that start inside a steady-state step (step_analysis.hpp).
//   launch latency  the duration of the API call that queued the kernel (host cost);
//   queue latency   from the end of that call to the kernel's start on the device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "parity/analyzer/profile/distribution.hpp"
#include "parity/analyzer/profile/step_analysis.hpp"
#include "parity/analyzer/profile/thresholds.hpp"
#include "parity/analyzer/profile/trace_data.hpp"

namespace parity::analyzer {

struct OpStat {
  std::string name;
  std::string phase;      // layers: the phase they ran in (forward, backward); ops: empty
  Distribution time;      // over every call
  double step_share = 0;  // total / steady-state step time (threads in parallel can exceed 1)
  double self_ns = 0;     // the total less the time of ranges of its kind nested in it
};

struct KernelStat {
  std::string name;
  Distribution time;
  double device_share = 0;  // of all kernel time
  Distribution launch;      // API call durations of launches found
  Distribution queue;       // API call end to kernel start
};

struct OpAnalysis {
  std::vector<OpStat> ops;          // by total time, largest first
  std::vector<OpStat> layers;       // by self time, largest first
  std::vector<KernelStat> kernels;  // by total time, largest first
  std::int64_t kernel_count = 0,
               small_kernel_count = 0;  // small: under launch_bound.small_kernel_us
  double kernel_time_ns = 0;
  double conversion_ns = 0;     // time in conversion ops (see is_conversion_op)
  double conversion_share = 0;  // of steady-state step time
};

// Reorders, casts, transposes, layout and dtype conversions: ops that move
// data without computing (oneDNN "reorder", "aten::to", "Cast", "TransData").
// A name is one when, lower-cased, it is "aten::to" or holds "reorder",
// "cast", "transpose", "transdata", "permute", "convert", "aten::_to_copy" or
// "contiguous" (docs/rules.md gives the same test in SQL).
bool is_conversion_op(std::string_view name);

OpAnalysis analyze_ops(const TraceData& trace, const StepAnalysis& steps,
                       const Thresholds& thresholds);

}  // namespace parity::analyzer
