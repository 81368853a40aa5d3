// Health counters: the numeric series a trainer records that the rules read.
// Well-known series names (docs/trace-schema.md):
//   loss                   non-finite values are counted;
//   loss_scale             every drop is a mixed-precision overflow (a skipped step);
//   skipped_steps          the trainer's total of steps skipped for overflow (a fixed
//                          scale that drops overflowing updates never drops itself);
//   nan_count, inf_count   each sample is the number of non-finite values found then;
//   memory_used_bytes, memory_capacity_bytes   device (or host) memory.
#pragma once

#include <cstdint>
#include <optional>

#include "parity/analyzer/profile/trace_data.hpp"

namespace parity::analyzer {

struct CounterAnalysis {
  std::int64_t loss_samples = 0, nonfinite_losses = 0;
  std::int64_t loss_scale_samples = 0, loss_scale_drops = 0;
  std::int64_t overflow_skips = 0;  // the largest skipped_steps sample
  double nonfinite_values = 0;  // sum of nan_count and inf_count samples
  std::optional<double> memory_peak_bytes, memory_capacity_bytes;
};

CounterAnalysis analyze_counters(const TraceData& trace);

}  // namespace parity::analyzer
