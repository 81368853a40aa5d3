// MG-WFBP's greedy merge (Shi, Chu, Li: "MG-WFBP: Efficient Data
// Communication for Distributed Synchronous SGD Algorithms", INFOCOM 2019;
// the authors' code: HKBU-HPML/MG-WFBP, _generate_groups_mgwfbp). Walking
// backward from the last parameter, the group being formed would start its
// AllReduce at `start` (its gradients ready and the lane free) and end at
// start + c(group). When the next gradient is ready before that end, the
// group is merged with it if
//   - its AllReduce could not have started before that gradient was ready
//     anyway (start > ready(next)): merging delays nothing; or
//   - waiting for that gradient (ready(next) - start) costs less than what the
//     merge saves, c(group) + c(next) - c(group + next): alpha, the startup
//     of one message, under the alpha-beta cost the paper assumes.
// Otherwise the group is closed and the next gradient starts a new one.
// Durations are those of an AllReduce starting at `start` (busy while
// backward runs, idle after; backward slowed while it runs: reduce_bucket),
// and "ready before" compares backward's progress: a gradient is ready before
// the group's AllReduce ends if backward has got to it by then.
#include <algorithm>

#include "parity/analyzer/tune/split_optimizer.hpp"

namespace parity::analyzer {

std::vector<profiler::GradientBucket> mg_wfbp_split(const GradientProfile& profile,
                                                    const AllreduceCost& cost) {
  const std::size_t n = profile.ready_ns.size();
  if (n == 0) return {};
  std::vector<profiler::GradientBucket> backward;  // the groups, last parameters first
  LaneState lane;
  profiler::GradientBucket group{static_cast<std::uint32_t>(n - 1),
                                 static_cast<std::uint32_t>(n - 1)};
  double group_ready = profile.ready_ns[n - 1];
  auto group_bytes = static_cast<double>(profile.bytes[n - 1]);
  const auto reduce = [&](double ready, double bytes) {
    return reduce_bucket(profile, lane, ready, bytes, cost.busy(bytes), cost.idle(bytes));
  };
  for (std::size_t next = n - 1; next-- > 0;) {
    const BucketStep alone = reduce(group_ready, group_bytes);
    const double started = alone.progress_at_start_ns;  // backward's progress at the start
    const double duration = alone.end_ns - alone.start_ns;
    const double next_ready = profile.ready_ns[next];
    const auto next_bytes = static_cast<double>(profile.bytes[next]);
    // What merging saves, both AllReduces timed from the group's start.
    const auto from_start = [&](double bytes) {
      const BucketStep step = reduce(group_ready, bytes);
      return step.end_ns - step.start_ns;
    };
    const double saved = duration + from_start(next_bytes) - from_start(group_bytes + next_bytes);
    const bool ready_before_end =
        next_ready < alone.after.progress_ns || alone.after.progress_ns >= profile.compute_end_ns();
    const bool merge = ready_before_end && (started > next_ready || next_ready - started < saved);
    if (merge) {
      group.first = static_cast<std::uint32_t>(next);
      group_ready = std::max(group_ready, next_ready);
      group_bytes += next_bytes;
    } else {
      lane = alone.after;
      backward.push_back(group);
      group = {static_cast<std::uint32_t>(next), static_cast<std::uint32_t>(next)};
      group_ready = next_ready;
      group_bytes = next_bytes;
    }
  }
  backward.push_back(group);
  return {backward.rbegin(), backward.rend()};
}

}  // namespace parity::analyzer
