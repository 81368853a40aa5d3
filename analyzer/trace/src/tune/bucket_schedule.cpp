#include "parity/analyzer/tune/bucket_schedule.hpp"

#include <algorithm>
#include <numeric>

namespace parity::analyzer {
namespace {

// The AllReduces of a simulated schedule in the order they ran, with
// backward's progress when each started: enough to tell when backward reached
// any point of its work.
class BackwardTimeline {
 public:
  void add(double start_ns, double end_ns, double progress_at_start_ns, double rate) {
    runs_.push_back({start_ns, end_ns, progress_at_start_ns, rate});
  }
  // Backward's progress reaches `progress_ns` at full speed between AllReduces
  // and at the contended rate during one.
  double wall_time(double progress_ns, LaneState last) const {
    for (const Run& run : runs_) {
      if (progress_ns <= run.progress_at_start_ns)
        return run.start_ns - (run.progress_at_start_ns - progress_ns);
      if (progress_ns <= run.progress_at_start_ns + run.rate * (run.end_ns - run.start_ns))
        return run.start_ns + (progress_ns - run.progress_at_start_ns) / run.rate;
    }
    return wall_time_after(last, progress_ns);
  }

 private:
  struct Run {
    double start_ns, end_ns, progress_at_start_ns, rate;
  };
  std::vector<Run> runs_;
};

}  // namespace

double GradientProfile::last_ready_ns() const {
  return ready_ns.empty() ? 0.0 : *std::max_element(ready_ns.begin(), ready_ns.end());
}

double GradientProfile::backward_rate(double message_bytes, double busy_ns) const {
  if (!backward_loss.any()) return 1.0;
  const double lost = backward_loss.lost_ns(message_bytes, message_bytes);
  return busy_ns > lost ? std::max(kLeastBackwardRate, 1.0 - lost / busy_ns) : kLeastBackwardRate;
}

double GradientProfile::compute_end_ns() const {
  return std::max(backward_end_ns, last_ready_ns());
}

std::uint64_t GradientProfile::total_bytes() const {
  return std::accumulate(bytes.begin(), bytes.end(), std::uint64_t{0});
}

double allreduce_end(double start_ns, double busy_ns, double idle_ns, double backward_end_ns) {
  if (start_ns >= backward_end_ns) return start_ns + idle_ns;
  if (start_ns + busy_ns <= backward_end_ns) return start_ns + busy_ns;
  const double done = (backward_end_ns - start_ns) / busy_ns;
  return backward_end_ns + (1.0 - done) * idle_ns;
}

BucketStep reduce_bucket(const GradientProfile& profile, LaneState before, double ready_ns,
                         double bytes, double busy_ns, double idle_ns) {
  const double work = profile.compute_end_ns(), rate = profile.backward_rate(bytes, busy_ns);
  // Until the bucket is ready the lane idles and backward runs at full speed.
  const double progress = std::max(before.progress_ns, std::min(ready_ns, work));
  BucketStep step;
  step.start_ns = before.free_ns + (progress - before.progress_ns);
  step.progress_at_start_ns = progress;
  if (progress >= work) {
    step.end_ns = step.start_ns + idle_ns;
    step.after = {step.end_ns, work};
    return step;
  }
  // Backward ends during this AllReduce at the contended rate, or not at all.
  const double backward_end = step.start_ns + (work - progress) / rate;
  step.end_ns = allreduce_end(step.start_ns, busy_ns, idle_ns, backward_end);
  step.after = {step.end_ns, std::min(work, progress + rate * (step.end_ns - step.start_ns))};
  return step;
}

double wall_time_after(LaneState state, double progress_ns) {
  return state.free_ns + std::max(0.0, progress_ns - state.progress_ns);
}

double done_ns(const GradientProfile& profile, LaneState state) {
  return wall_time_after(state, profile.compute_end_ns());
}

Schedule simulate_schedule(const GradientProfile& profile,
                           std::span<const profiler::GradientBucket> buckets,
                           const AllreduceCost& cost) {
  Schedule schedule;
  schedule.buckets.resize(buckets.size());
  BackwardTimeline timeline;
  LaneState lane;
  for (std::size_t k = buckets.size(); k-- > 0;) {
    BucketTiming& timing = schedule.buckets[k];
    timing.bucket = buckets[k];
    double ready = 0;
    for (std::uint32_t param = buckets[k].first; param <= buckets[k].last; ++param) {
      timing.bytes += profile.bytes[param];
      ready = std::max(ready, profile.ready_ns[param]);
    }
    const auto bytes = static_cast<double>(timing.bytes);
    const double busy = cost.busy(bytes);
    const BucketStep step = reduce_bucket(profile, lane, ready, bytes, busy, cost.idle(bytes));
    timing.ready_ns = timeline.wall_time(ready, lane);
    timing.start_ns = step.start_ns;
    timing.end_ns = step.end_ns;
    timeline.add(step.start_ns, step.end_ns, step.progress_at_start_ns,
                 profile.backward_rate(bytes, busy));
    lane = step.after;
  }
  schedule.backward_ns = timeline.wall_time(profile.compute_end_ns(), lane);
  schedule.done_ns = done_ns(profile, lane);
  if (!buckets.empty()) {
    const double reduced = schedule.buckets.front().end_ns;
    schedule.exposed_ns = reduced - timeline.wall_time(profile.last_ready_ns(), lane);
    schedule.wait_ns = std::max(0.0, reduced - schedule.backward_ns);
  }
  return schedule;
}

}  // namespace parity::analyzer
