// The tuner's projection to larger clusters (`--simulate`): the same
// gradient-ready times at 8, 16, ..., 1024 ranks, under the ring and the tree
// model, comparing DDP's default buckets (mb:25) with the optimum found at
// each size by what communication adds to the step: the time until backward
// and every AllReduce have ended, less backward's own duration (the wait
// after backward plus how much the AllReduces beside it slowed it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "parity/analyzer/tune/cost_model.hpp"

namespace parity::analyzer {

struct ScalePoint {
  std::int64_t ranks = 0;
  AllreduceAlgorithm algorithm = AllreduceAlgorithm::kRing;
  double ddp_added_ns = 0, optimum_added_ns = 0;
  std::vector<profiler::GradientBucket> optimum;
  double gain_ns() const { return ddp_added_ns - optimum_added_ns; }
};

inline constexpr const char* kDdpDefaultSplit = "mb:25";  // bucket_cap_mb=25
inline constexpr std::int64_t kProjectionFirstRanks = 8, kProjectionLastRanks = 1024;

// By rank count, ring before tree.
std::vector<ScalePoint> project_scaling(const GradientProfile& profile, const CostModel& cost);

}  // namespace parity::analyzer
