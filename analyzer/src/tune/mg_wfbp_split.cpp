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
// backward runs, idle after: allreduce_end).
#include <algorithm>
#include <limits>

#include "parity/analyzer/tune/split_optimizer.hpp"

namespace parity::analyzer {

std::vector<GradientBucket> mg_wfbp_split(const GradientProfile& profile,
                                          const AllreduceCost& cost) {
  const std::size_t n = profile.ready_ns.size();
  if (n == 0) return {};
  std::vector<GradientBucket> backward;  // the groups, last parameters first
  double lane_free = -std::numeric_limits<double>::infinity();
  GradientBucket group{static_cast<std::uint32_t>(n - 1), static_cast<std::uint32_t>(n - 1)};
  double group_ready = profile.ready_ns[n - 1];
  auto group_bytes = static_cast<double>(profile.bytes[n - 1]);
  for (std::size_t next = n - 1; next-- > 0;) {
    const double start = std::max(group_ready, lane_free);
    const auto duration_from_start = [&](double bytes) {
      return allreduce_end(start, cost.busy(bytes), cost.idle(bytes), profile.backward_end_ns) -
             start;
    };
    const double duration = duration_from_start(group_bytes);
    const double next_ready = profile.ready_ns[next];
    const auto next_bytes = static_cast<double>(profile.bytes[next]);
    const double saved =
        duration + duration_from_start(next_bytes) - duration_from_start(group_bytes + next_bytes);
    const bool merge =
        next_ready < start + duration && (start > next_ready || next_ready - start < saved);
    if (merge) {
      group.first = static_cast<std::uint32_t>(next);
      group_ready = std::max(group_ready, next_ready);
      group_bytes += next_bytes;
    } else {
      lane_free = start + duration;
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
