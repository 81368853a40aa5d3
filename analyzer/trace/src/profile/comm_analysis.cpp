#include "parity/analyzer/profile/comm_analysis.hpp"

#include <algorithm>
#include <map>

#include "parity/profiler/trace_schema.hpp"

namespace parity::analyzer {

std::vector<Interval> compute_intervals(const TraceData& trace) {
  std::vector<Interval> compute;
  for (const TraceGpuActivity& activity : trace.gpu_activities)
    if (activity.kind == profiler::GpuActivityKind::kKernel)
      compute.push_back({activity.start_ns, activity.end_ns});
  if (!compute.empty()) return merge_intervals(std::move(compute));
  for (const TraceRange& range : trace.ranges)
    if (range.category == profiler::Category::kPhase) {
      const StepPart part = phase_part(trace.name(range.name));
      if (part == StepPart::kForward || part == StepPart::kBackward)
        compute.push_back({range.start_ns, range.end_ns});
    }
  return merge_intervals(std::move(compute));
}

CommAnalysis analyze_comm(const TraceData& trace, const StepAnalysis& steps) {
  CommAnalysis analysis;
  analysis.exposed_share = steps.share(StepPart::kCommunication);
  if (trace.collectives.empty()) return analysis;
  const bool device = std::any_of(
      trace.gpu_activities.begin(), trace.gpu_activities.end(),
      [](const TraceGpuActivity& a) { return a.kind == profiler::GpuActivityKind::kKernel; });
  analysis.compute_source = device ? "device kernels" : "host forward/backward";
  const std::vector<Interval> compute = compute_intervals(trace);

  struct Samples {
    std::vector<std::int64_t> time;
    std::int64_t bytes = 0, overlapped = 0, exposed = 0;
  };
  std::map<profiler::CollectiveOp, Samples> by_op;
  std::map<std::int64_t, Samples> by_bucket;
  for (const TraceCollective& c : trace.collectives) {
    if (!steps.in_steady_state(c.start_ns)) continue;
    const std::int64_t overlapped = covered_length(compute, {c.start_ns, c.end_ns});
    const std::int64_t exposed = c.dur_ns() - overlapped;
    for (Samples* samples :
         {&by_op[c.op],
          c.op == profiler::CollectiveOp::kAllReduce ? &by_bucket[c.bucket] : nullptr}) {
      if (!samples) continue;
      samples->time.push_back(c.dur_ns());
      samples->bytes += c.bytes;
      samples->overlapped += overlapped;
      samples->exposed += exposed;
    }
    analysis.total_ns += c.dur_ns();
    analysis.overlapped_ns += overlapped;
    analysis.exposed_ns += exposed;
  }
  const double n = static_cast<double>(trace.world_size);
  for (auto& [op, samples] : by_op) {
    CollectiveStats stats;
    stats.op = std::string(profiler::collective_op_name(op));
    stats.bytes = samples.bytes;
    stats.time = distribution_of(samples.time);
    stats.algorithm_gbps =
        stats.time.total_ns > 0 ? static_cast<double>(samples.bytes) / stats.time.total_ns : 0;
    stats.bus_gbps = op == profiler::CollectiveOp::kAllReduce && n > 1
                         ? stats.algorithm_gbps * 2 * (n - 1) / n
                         : stats.algorithm_gbps;
    stats.overlapped_ns = samples.overlapped;
    stats.exposed_ns = samples.exposed;
    analysis.ops.push_back(std::move(stats));
  }
  std::sort(analysis.ops.begin(), analysis.ops.end(),
            [](const CollectiveStats& a, const CollectiveStats& b) {
              return a.time.total_ns > b.time.total_ns;
            });
  for (auto& [bucket, samples] : by_bucket) {
    const auto calls = static_cast<std::int64_t>(samples.time.size());
    analysis.buckets.push_back({bucket, calls > 0 ? samples.bytes / calls : 0,
                                distribution_of(samples.time), samples.exposed});
  }
  return analysis;
}

}  // namespace parity::analyzer
