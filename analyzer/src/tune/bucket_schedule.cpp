#include "parity/analyzer/tune/bucket_schedule.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace parity::analyzer {

double GradientProfile::last_ready_ns() const {
  return ready_ns.empty() ? 0.0 : *std::max_element(ready_ns.begin(), ready_ns.end());
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

Schedule simulate_schedule(const GradientProfile& profile, std::span<const GradientBucket> buckets,
                           const AllreduceCost& cost) {
  Schedule schedule;
  schedule.buckets.resize(buckets.size());
  // The last bucket waits for its gradients only.
  double previous_end = -std::numeric_limits<double>::infinity();
  for (std::size_t k = buckets.size(); k-- > 0;) {
    BucketTiming& timing = schedule.buckets[k];
    timing.bucket = buckets[k];
    timing.ready_ns = -std::numeric_limits<double>::infinity();
    for (std::uint32_t param = buckets[k].first; param <= buckets[k].last; ++param) {
      timing.bytes += profile.bytes[param];
      timing.ready_ns = std::max(timing.ready_ns, profile.ready_ns[param]);
    }
    timing.start_ns = std::max(timing.ready_ns, previous_end);
    const auto bytes = static_cast<double>(timing.bytes);
    timing.end_ns =
        allreduce_end(timing.start_ns, cost.busy(bytes), cost.idle(bytes), profile.backward_end_ns);
    previous_end = timing.end_ns;
  }
  if (!buckets.empty())
    schedule.exposed_ns = schedule.buckets.front().end_ns - profile.last_ready_ns();
  return schedule;
}

}  // namespace parity::analyzer
