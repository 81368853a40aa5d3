// The step-time rules: data-bound, queue-empty, long-first-step, step-jitter, comm-tail.
#include <algorithm>

#include "parity/analyzer/profile/units.hpp"
#include "parity/analyzer/report_format.hpp"
#include "rules.hpp"

namespace parity::analyzer::rules {
namespace {

// The steps of the steady state, slowest first, as "step 41 (12.1 ms)".
std::string slowest_steps(const StepAnalysis& steps, std::size_t count) {
  std::vector<const StepBreakdown*> steady;
  for (std::size_t i = steps.warmup_steps; i < steps.steps.size(); ++i)
    steady.push_back(&steps.steps[i]);
  const std::size_t shown = std::min(count, steady.size());
  std::partial_sort(
      steady.begin(), steady.begin() + static_cast<std::ptrdiff_t>(shown), steady.end(),
      [](const StepBreakdown* a, const StepBreakdown* b) { return a->dur_ns > b->dur_ns; });
  std::string text;
  for (std::size_t i = 0; i < shown; ++i)
    text += (i ? ", " : "") + std::string("step ") + std::to_string(steady[i]->step) + " (" +
            format_duration(static_cast<double>(steady[i]->dur_ns)) + ")";
  return text;
}

}  // namespace

void data_bound(const RankProfile& profile, const Thresholds&, std::vector<Finding>& out) {
  const DataAnalysis& data = profile.data;
  if (data.input_bound == InputBound::kNot) return;
  const bool highly = data.input_bound == InputBound::kHighly;
  Finding f = finding(profile, "data-bound", highly ? Severity::kError : Severity::kWarning,
                      std::string(input_bound_name(data.input_bound)) + " input-bound: " +
                          format_percent(data.input_bound_share) + " of step time waits for data");
  const StepAnalysis& steps = profile.steps;
  f.evidence.push_back("data wait " + format_duration(steps.part(StepPart::kDataWait).mean_ns) +
                       " per step of " + format_duration(steps.step_time.mean_ns) + " (from the " +
                       data.share_source + ", steady state)");
  f.numbers = {{"input_bound_share", data.input_bound_share},
               {"class", input_bound_name(data.input_bound)},
               {"data_wait_mean_ns", steps.part(StepPart::kDataWait).mean_ns},
               {"step_mean_ns", steps.step_time.mean_ns}};
  for (const QueueStats& queue : data.queues) {
    f.evidence.push_back("queue '" + queue.name + "' empty on " +
                         format_percent(queue.empty_ratio) + " of gets; producers " +
                         format_number(queue.producer_rate) + " batches/s, consumer " +
                         format_number(queue.consumer_rate) + " batches/s");
    f.numbers["queues"][queue.name] = {{"empty_ratio", queue.empty_ratio},
                                       {"producer_rate", queue.producer_rate},
                                       {"consumer_rate", queue.consumer_rate}};
  }
  f.next_step =
      "make input keep up with compute: more loader workers (num_workers), a deeper prefetch "
      "queue, cheaper decoding/augmentation or a cached dataset; compare the loader thread's "
      "load_batch time with the step time";
  out.push_back(std::move(f));
}

void queue_empty(const RankProfile& profile, const Thresholds& t, std::vector<Finding>& out) {
  // When the run is input-bound, data-bound already reports the queue.
  if (profile.data.input_bound != InputBound::kNot) return;
  for (const QueueStats& queue : profile.data.queues) {
    if (queue.gets == 0 || queue.empty_ratio <= t.queue_empty_warning_ratio) continue;
    Finding f = finding(profile, "queue-empty", Severity::kInfo,
                        "queue '" + queue.name + "' was empty on " +
                            format_percent(queue.empty_ratio) + " of gets, but waiting cost only " +
                            format_percent(queue.consumer_wait_share) + " of step time");
    f.evidence.push_back(std::to_string(queue.empty_gets) + " of " + std::to_string(queue.gets) +
                         " gets waited over " + format_duration(t.queue_empty_wait_us * 1000));
    f.numbers = {{"queue", queue.name},
                 {"empty_ratio", queue.empty_ratio},
                 {"consumer_wait_share", queue.consumer_wait_share}};
    f.next_step =
        "nothing urgent; a faster model or a larger batch would make this queue the bottleneck";
    out.push_back(std::move(f));
  }
}

void long_first_step(const RankProfile& profile, const Thresholds& t, std::vector<Finding>& out) {
  const StepAnalysis& steps = profile.steps;
  if (!steps.has_steady_state() || steps.warmup_steps == 0 || steps.step_time.median_ns <= 0)
    return;
  const StepBreakdown& first = steps.steps.front();
  const double ratio = static_cast<double>(first.dur_ns) / steps.step_time.median_ns;
  const double excess_s = (static_cast<double>(first.dur_ns) - steps.step_time.median_ns) * 1e-9;
  if (ratio < t.first_step_info_ratio) return;
  const bool warn = ratio >= t.first_step_warning_ratio && excess_s >= t.first_step_warning_min_s;
  Finding f =
      finding(profile, "long-first-step", warn ? Severity::kWarning : Severity::kInfo,
              "the first step took " + format_duration(static_cast<double>(first.dur_ns)) + ", " +
                  std::to_string(static_cast<int>(ratio + 0.5)) + "x the steady-state median");
  f.evidence.push_back("first step " + std::to_string(first.step) + ": " +
                       format_duration(static_cast<double>(first.dur_ns)) + "; median " +
                       format_duration(steps.step_time.median_ns) + "; the excess " +
                       format_duration(excess_s * 1e9) + " is " +
                       format_percent(excess_s * 1e9 / static_cast<double>(steps.total_step_ns)) +
                       " of all step time");
  std::string parts;
  for (const StepPart part : kAllStepParts)
    if (first.part(part) > 0)
      parts += (parts.empty() ? "" : ", ") + std::string(step_part_name(part)) + " " +
               format_duration(static_cast<double>(first.part(part)));
  f.evidence.push_back("first step's parts: " + parts);
  f.numbers = {{"first_step_ns", first.dur_ns},
               {"median_step_ns", steps.step_time.median_ns},
               {"ratio", ratio}};
  f.next_step =
      "warm-up (primitive creation, autotuning, graph compilation, first allocations): cache "
      "compiled kernels and keep input shapes fixed; leave it out of throughput numbers "
      "(--set warmup_steps=N)";
  out.push_back(std::move(f));
}

void step_jitter(const RankProfile& profile, const Thresholds& t, std::vector<Finding>& out) {
  const StepAnalysis& steps = profile.steps;
  const Distribution& time = steps.step_time;
  if (time.count < 3 || time.median_ns <= 0) return;
  const double spread = (time.p95_ns - time.median_ns) / time.median_ns;
  if (spread < t.jitter_info_spread) return;
  const bool warn = spread >= t.jitter_warning_spread;
  // The part whose time varies most explains most of the jitter.
  StepPart varying = StepPart::kOther;
  double largest = -1;
  for (const StepPart part : kAllStepParts) {
    const double stddev = steps.part(part).cv * steps.part(part).mean_ns;
    if (stddev > largest) largest = stddev, varying = part;
  }
  Finding f = finding(
      profile, "step-jitter", warn ? Severity::kWarning : Severity::kInfo,
      "the slowest 5% of steps take " + format_percent(spread) + " longer than the median step");
  f.evidence.push_back("median " + format_duration(time.median_ns) + ", p95 " +
                       format_duration(time.p95_ns) + ", max " + format_duration(time.max_ns) +
                       ", coefficient of variation " + format_percent(time.cv));
  f.evidence.push_back("slowest: " + slowest_steps(steps, 3));
  f.evidence.push_back("most variable part: " + std::string(step_part_name(varying)) +
                       " (standard deviation " + format_duration(largest) + ")");
  f.numbers = {{"spread", spread},
               {"cv", time.cv},
               {"median_ns", time.median_ns},
               {"p95_ns", time.p95_ns},
               {"most_variable_part", step_part_name(varying)}};
  f.next_step = "look at the slowest steps in the timeline (parity-view) around the " +
                std::string(step_part_name(varying)) +
                " part: other processes on the machine, periodic work (checkpoints, logging, "
                "evaluation), or uneven batches";
  out.push_back(std::move(f));
}

void comm_tail(const RankProfile& profile, const Thresholds& t, std::vector<Finding>& out) {
  const CommAnalysis& comm = profile.comm;
  if (comm.exposed_share < t.comm_tail_info_share) return;
  const bool warn = comm.exposed_share >= t.comm_tail_warning_share;
  Finding f = finding(profile, "comm-tail", warn ? Severity::kWarning : Severity::kInfo,
                      "exposed communication takes " + format_percent(comm.exposed_share) +
                          " of step time (the iteration tail)");
  f.evidence.push_back("communication " +
                       format_duration(profile.steps.part(StepPart::kCommunication).mean_ns) +
                       " per step not under compute; " +
                       format_percent(comm.total_ns > 0 ? static_cast<double>(comm.overlapped_ns) /
                                                              static_cast<double>(comm.total_ns)
                                                        : 0) +
                       " of collective time overlapped " + comm.compute_source);
  const auto slowest = std::max_element(
      comm.buckets.begin(), comm.buckets.end(),
      [](const BucketStats& a, const BucketStats& b) { return a.exposed_ns < b.exposed_ns; });
  if (slowest != comm.buckets.end())
    f.evidence.push_back("most exposed bucket: " + std::to_string(slowest->bucket) + " (" +
                         format_bytes(static_cast<double>(slowest->bytes)) + ", " +
                         format_duration(static_cast<double>(slowest->exposed_ns)) +
                         " exposed in total)");
  f.numbers = {{"exposed_share", comm.exposed_share},
               {"exposed_ns", comm.exposed_ns},
               {"overlapped_ns", comm.overlapped_ns}};
  f.next_step =
      "re-split the gradient buckets so the last AllReduce starts earlier: run "
      "`parity tune-allreduce " +
      profile.path + "` and apply its split points";
  out.push_back(std::move(f));
}

}  // namespace parity::analyzer::rules
