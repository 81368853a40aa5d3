#include "parity/analyzer/tune/scale_projection.hpp"

#include <span>

#include "parity/analyzer/tune/split_optimizer.hpp"

namespace parity::analyzer {

std::vector<ScalePoint> project_scaling(const GradientProfile& profile, const CostModel& cost) {
  const std::vector<profiler::GradientBucket> ddp =
      profiler::AllreduceSplit::parse(kDdpDefaultSplit, "DDP's default")
          .buckets(profile.bytes, "DDP's default");
  const auto added = [&](std::span<const profiler::GradientBucket> buckets,
                         const AllreduceCost& at) {
    return simulate_schedule(profile, buckets, at).done_ns - profile.compute_end_ns();
  };
  std::vector<ScalePoint> points;
  for (std::int64_t ranks = kProjectionFirstRanks; ranks <= kProjectionLastRanks; ranks *= 2)
    for (const AllreduceAlgorithm algorithm :
         {AllreduceAlgorithm::kRing, AllreduceAlgorithm::kTree}) {
      const AllreduceCost at = cost.at(algorithm, ranks);
      ScalePoint point{ranks, algorithm, added(ddp, at), 0, optimal_split(profile, at)};
      point.optimum_added_ns = added(point.optimum, at);
      points.push_back(std::move(point));
    }
  return points;
}

}  // namespace parity::analyzer
