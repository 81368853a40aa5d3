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

Schedule simulate_schedule(const GradientProfile& profile, std::span<const GradientBucket> buckets,
                           const CostFunction& cost) {
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
    timing.end_ns = timing.start_ns + cost(static_cast<double>(timing.bytes));
    previous_end = timing.end_ns;
  }
  if (!buckets.empty())
    schedule.exposed_ns = schedule.buckets.front().end_ns - profile.last_ready_ns();
  return schedule;
}

}  // namespace parity::analyzer
