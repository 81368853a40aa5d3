// Communication analysis: each kind of collective's bytes, time and
// bandwidth, and how much of it ran under compute. Compute is the device's
// kernels when the trace has any, else the host's forward and backward phases
// (a CPU run computes on the host). A collective's exposed time is the part
// of it that no compute covers. Only collectives that start inside a
// steady-state step count (step_analysis.hpp): not a start-up broadcast.
//   algorithm bandwidth  bytes / duration;
//   bus bandwidth        algorithm bandwidth x 2(n-1)/n for an allreduce of n
//                        ranks (NCCL's convention: what each link carried).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "parity/analyzer/profile/distribution.hpp"
#include "parity/analyzer/profile/intervals.hpp"
#include "parity/analyzer/profile/step_analysis.hpp"
#include "parity/analyzer/profile/trace_data.hpp"

namespace parity::analyzer {

struct CollectiveStats {
  std::string op;  // "allreduce", ...
  std::int64_t bytes = 0;
  Distribution time;
  double algorithm_gbps = 0, bus_gbps = 0;
  std::int64_t overlapped_ns = 0, exposed_ns = 0;
};

struct BucketStats {
  std::int64_t bucket = 0;
  std::int64_t bytes = 0;  // per call
  Distribution time;
  std::int64_t exposed_ns = 0;
};

struct CommAnalysis {
  std::vector<CollectiveStats> ops;  // by total time, largest first
  std::vector<BucketStats> buckets;  // allreduce buckets, by bucket number
  std::int64_t total_ns = 0, overlapped_ns = 0, exposed_ns = 0;
  double exposed_share = 0;    // steady-state communication part of the step (see step_analysis)
  std::string compute_source;  // "device kernels" or "host forward/backward"
};

// The merged intervals during which the rank computed (see above).
std::vector<Interval> compute_intervals(const TraceData& trace);

CommAnalysis analyze_comm(const TraceData& trace, const StepAnalysis& steps);

}  // namespace parity::analyzer
