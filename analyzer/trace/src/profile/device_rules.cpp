// The device and numeric rules: launch-bound, conversion-ops,
// loss-scale-overflow, non-finite, memory-capacity.
#include <algorithm>

#include "parity/analyzer/profile/units.hpp"
#include "parity/analyzer/report_format.hpp"
#include "rules.hpp"

namespace parity::analyzer::rules {

void launch_bound(const RankProfile& profile, const Thresholds& t, std::vector<Finding>& out) {
  const OpAnalysis& ops = profile.ops;
  if (ops.kernel_count == 0 || profile.idle.empty()) return;
  const double small_share =
      static_cast<double>(ops.small_kernel_count) / static_cast<double>(ops.kernel_count);
  // The busiest stream is where launch overhead would show.
  const IdleTrack& busiest = *std::max_element(
      profile.idle.begin(), profile.idle.end(),
      [](const IdleTrack& a, const IdleTrack& b) { return a.busy_ns < b.busy_ns; });
  const double host_idle =
      busiest.window_ns > 0
          ? static_cast<double>(busiest.idle_by_cause[static_cast<std::size_t>(IdleCause::kHost)]) /
                static_cast<double>(busiest.window_ns)
          : 0;
  if (small_share < t.launch_bound_small_share || host_idle < t.launch_bound_host_idle_share)
    return;
  Finding f =
      finding(profile, "launch-bound", Severity::kWarning,
              "launch-bound: " + format_percent(small_share) + " of kernels are under " +
                  format_duration(t.small_kernel_us * 1000) + " and " + busiest.track + " idles " +
                  format_percent(host_idle) + " of the time waiting on the host");
  const double per_step =
      static_cast<double>(ops.kernel_count) /
      static_cast<double>(std::max<std::size_t>(1, profile.steps.steady_count()));
  f.evidence.push_back(format_number(per_step) + " kernels per step, " +
                       std::to_string(ops.small_kernel_count) + " of " +
                       std::to_string(ops.kernel_count) + " small");
  if (!ops.kernels.empty()) {
    const KernelStat& top = ops.kernels.front();
    f.evidence.push_back("mean launch call " + format_duration(top.launch.mean_ns) + " and queue " +
                         format_duration(top.queue.mean_ns) + " for " + top.name);
  }
  f.numbers = {{"small_kernel_share", small_share},
               {"host_idle_share", host_idle},
               {"kernels_per_step", per_step}};
  f.next_step =
      "cut launches: capture the step in a CUDA Graph, fuse elementwise kernels, or "
      "raise the batch size so each kernel does more work";
  out.push_back(std::move(f));
}

void conversion_ops(const RankProfile& profile, const Thresholds& t, std::vector<Finding>& out) {
  const OpAnalysis& ops = profile.ops;
  if (ops.conversion_share < t.conversion_info_share) return;
  const bool warn = ops.conversion_share >= t.conversion_warning_share;
  Finding f = finding(profile, "conversion-ops", warn ? Severity::kWarning : Severity::kInfo,
                      "conversion ops (reorders, casts, transposes) take " +
                          format_percent(ops.conversion_share) + " of step time");
  for (const OpStat& op : ops.ops)
    if (is_conversion_op(op.name) && f.evidence.size() < 5) {
      f.evidence.push_back(op.name + ": " + std::to_string(op.time.count) + " calls, " +
                           format_duration(op.time.total_ns) + " (" +
                           format_percent(op.step_share) + " of step time)");
      f.numbers["ops"][op.name] = {{"count", op.time.count}, {"total_ns", op.time.total_ns}};
    }
  f.numbers["conversion_share"] = ops.conversion_share;
  f.next_step =
      "keep tensors in one layout and dtype between layers: let oneDNN primitives pick "
      "their formats once and keep blocked layouts, keep weights in the layout backward "
      "wants, and avoid fp16/fp32 casts inside the step";
  out.push_back(std::move(f));
}

void loss_scale_overflow(const RankProfile& profile, const Thresholds& t,
                         std::vector<Finding>& out) {
  const CounterAnalysis& counters = profile.counters;
  // A dynamic scale drops once per skipped step; a fixed one only counts them.
  const std::int64_t skipped = std::max(counters.loss_scale_drops, counters.overflow_skips);
  if (skipped == 0) return;
  const double steps = static_cast<double>(std::max<std::size_t>(1, profile.steps.steps.size()));
  const double share = static_cast<double>(skipped) / steps;
  const bool warn = share >= t.overflow_warning_share;
  Finding f = finding(profile, "loss-scale-overflow", warn ? Severity::kWarning : Severity::kInfo,
                      std::to_string(skipped) + (skipped == 1 ? " step" : " steps") +
                          " skipped for gradient overflow (" + format_percent(share) +
                          " of steps); the loss scale dropped " +
                          std::to_string(counters.loss_scale_drops) +
                          (counters.loss_scale_drops == 1 ? " time" : " times"));
  f.evidence.push_back(std::to_string(counters.loss_scale_samples) + " loss_scale samples");
  if (counters.overflow_skips > 0)
    f.evidence.push_back("skipped_steps counter: " + std::to_string(counters.overflow_skips));
  f.numbers = {
      {"drops", counters.loss_scale_drops}, {"skipped", skipped}, {"share_of_steps", share}};
  f.next_step = warn
                    ? "too many skipped steps: start from a lower initial loss scale, grow it more "
                      "slowly, or keep the overflowing layers in fp32"
                    : "occasional overflows are how dynamic loss scaling works; nothing to do";
  out.push_back(std::move(f));
}

void non_finite(const RankProfile& profile, const Thresholds&, std::vector<Finding>& out) {
  const CounterAnalysis& counters = profile.counters;
  if (counters.nonfinite_losses == 0 && counters.nonfinite_values == 0) return;
  Finding f = finding(profile, "non-finite", Severity::kError,
                      "NaN or Inf values: " + std::to_string(counters.nonfinite_losses) +
                          " non-finite losses, " + format_number(counters.nonfinite_values) +
                          " values counted by nan_count/inf_count");
  f.evidence.push_back(std::to_string(counters.loss_samples) + " loss samples");
  f.numbers = {{"nonfinite_losses", counters.nonfinite_losses},
               {"nonfinite_values", counters.nonfinite_values}};
  f.next_step =
      "find where the first NaN/Inf appears: rerun with parity-train --detect-anomaly, "
      "or dump tensors (--dump) and run `parity nan-scan`";
  out.push_back(std::move(f));
}

void memory_capacity(const RankProfile& profile, const Thresholds& t, std::vector<Finding>& out) {
  const CounterAnalysis& counters = profile.counters;
  if (!counters.memory_peak_bytes || !counters.memory_capacity_bytes ||
      *counters.memory_capacity_bytes <= 0)
    return;
  const double share = *counters.memory_peak_bytes / *counters.memory_capacity_bytes;
  if (share < t.memory_warning_share) return;
  const bool error = share >= t.memory_error_share;
  Finding f = finding(profile, "memory-capacity", error ? Severity::kError : Severity::kWarning,
                      "peak memory is " + format_percent(share) + " of capacity");
  f.evidence.push_back("peak " + format_bytes(*counters.memory_peak_bytes) + " of " +
                       format_bytes(*counters.memory_capacity_bytes));
  f.numbers = {{"peak_bytes", *counters.memory_peak_bytes},
               {"capacity_bytes", *counters.memory_capacity_bytes},
               {"share", share}};
  f.next_step =
      "leave headroom before an out-of-memory stop: a smaller batch, mixed precision, "
      "activation recomputation, or fewer cached buffers";
  out.push_back(std::move(f));
}

}  // namespace parity::analyzer::rules
