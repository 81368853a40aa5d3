// Gradient splits chosen for a profile and a cost, under the in-order
// schedule of bucket_schedule.hpp (docs/tune-allreduce.md explains both):
//   optimal_split  a dynamic program over contiguous buckets: the least
//                  `done` (backward and every AllReduce finished), then the
//                  least exposed communication, then the fewest buckets.
//                  Exact, for any busy and idle costs, when AllReduces do not
//                  slow backward (no loss per byte); with a loss, within about
//                  1/1000 of backward per bucket (optimal_split.cpp);
//   mg_wfbp_split  the greedy merge of MG-WFBP (Shi et al., INFOCOM 2019 and
//                  IEEE TPDS 2021), the heuristic the optimum is compared to.
#pragma once

#include <vector>

#include "parity/analyzer/tune/bucket_schedule.hpp"

namespace parity::analyzer {

std::vector<profiler::GradientBucket> optimal_split(const GradientProfile& profile,
                                                    const AllreduceCost& cost);
std::vector<profiler::GradientBucket> mg_wfbp_split(const GradientProfile& profile,
                                                    const AllreduceCost& cost);

}  // namespace parity::analyzer
