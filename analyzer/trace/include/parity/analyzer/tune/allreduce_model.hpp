// The alpha-beta models of one AllReduce of n bytes over p ranks, where alpha
// is the latency of one message between two ranks and beta the time per byte
// on one link (docs/tune-allreduce.md):
//   ring  T = 2(p-1) alpha + 2(p-1)/p n beta     reduce-scatter then all-gather
//         (Thakur, Rabenseifner, Gropp 2005; NCCL's ring)
//   tree  T = 2 ceil(log2 p) alpha + 2 n beta    reduce up, broadcast down a
//         pipelined (double) binary tree (Sanders, Speck, Traeff 2009; NCCL's
//         tree): latency logarithmic in p, bandwidth term independent of p
#pragma once

#include <cstdint>
#include <string_view>

#include "parity/analyzer/tune/cost_table.hpp"

namespace parity::analyzer {

enum class AllreduceAlgorithm { kRing, kTree };

struct LinkParams {
  double alpha_ns = 0, beta_ns_per_byte = 0;
};

std::string_view algorithm_name(AllreduceAlgorithm algorithm);  // "ring", "tree"

// 0 for one rank: nothing to reduce.
double allreduce_time(AllreduceAlgorithm algorithm, const LinkParams& link, std::int64_t ranks,
                      double bytes);

// The link whose ring AllReduce over `ranks` (at least 2) takes
// line.intercept + line.slope x bytes.
LinkParams link_from_ring_line(const CostLine& line, std::int64_t ranks);

}  // namespace parity::analyzer
