#include "parity/analyzer/tune/scale_projection.hpp"

#include "parity/analyzer/tune/split_optimizer.hpp"

namespace parity::analyzer {

std::vector<ScalePoint> project_scaling(const GradientProfile& profile, const CostModel& cost) {
  const std::vector<GradientBucket> ddp = AllreduceSplit::parse(kDdpDefaultSplit, "DDP's default")
                                              .buckets(profile.bytes, "DDP's default");
  std::vector<ScalePoint> points;
  for (std::int64_t ranks = kProjectionFirstRanks; ranks <= kProjectionLastRanks; ranks *= 2)
    for (const AllreduceAlgorithm algorithm :
         {AllreduceAlgorithm::kRing, AllreduceAlgorithm::kTree}) {
      const AllreduceCost at = cost.at(algorithm, ranks);
      ScalePoint point{ranks, algorithm, simulate_schedule(profile, ddp, at).exposed_ns, 0,
                       optimal_split(profile, at)};
      point.optimum_exposed_ns = simulate_schedule(profile, point.optimum, at).exposed_ns;
      points.push_back(std::move(point));
    }
  return points;
}

}  // namespace parity::analyzer
