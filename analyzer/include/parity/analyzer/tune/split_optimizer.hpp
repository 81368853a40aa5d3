// Gradient splits chosen for a profile and a cost, under the in-order
// schedule of bucket_schedule.hpp (docs/tune-allreduce.md explains both):
//   optimal_split  an exact dynamic program over contiguous buckets, O(n^2)
//                  cost evaluations: no other split of the parameters into
//                  contiguous buckets has less exposed communication, for any
//                  busy and idle costs; of the splits that reach it, one with the
//                  fewest buckets (O(n^2) more work per bucket);
//   mg_wfbp_split  the greedy merge of MG-WFBP (Shi et al., INFOCOM 2019 and
//                  IEEE TPDS 2021), the heuristic the optimum is compared to.
#pragma once

#include <vector>

#include "parity/analyzer/tune/bucket_schedule.hpp"

namespace parity::analyzer {

std::vector<GradientBucket> optimal_split(const GradientProfile& profile,
                                          const AllreduceCost& cost);
std::vector<GradientBucket> mg_wfbp_split(const GradientProfile& profile,
                                          const AllreduceCost& cost);

}  // namespace parity::analyzer
