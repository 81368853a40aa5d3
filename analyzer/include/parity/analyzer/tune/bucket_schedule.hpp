// The in-order AllReduce schedule of a gradient split, as parity-train runs it
// (docs/tune-allreduce.md): one communication thread per rank takes the
// buckets from the last one (highest parameter indices) down to bucket 0; a
// bucket starts once all its gradients are ready on every rank and the bucket
// after it has finished:
//   start_k = max(ready_k, end_k+1),  end_k = start_k + cost(bytes_k)
// where ready_k is the latest ready time of the bucket's parameters. The
// exposed communication is end_0 minus the time the last gradient was ready.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "parity/core/allreduce_split.hpp"

namespace parity::analyzer {

// When each parameter's gradient is ready (ns from the start of backward) and
// what it adds to an AllReduce message, in forward order.
struct GradientProfile {
  std::vector<double> ready_ns;
  std::vector<std::uint64_t> bytes;
  double last_ready_ns() const;
  std::uint64_t total_bytes() const;
};

// The time (ns) of one AllReduce of a message of this many bytes.
using CostFunction = std::function<double(double bytes)>;

struct BucketTiming {
  GradientBucket bucket;
  std::uint64_t bytes = 0;
  double ready_ns = 0, start_ns = 0, end_ns = 0;
};

struct Schedule {
  std::vector<BucketTiming> buckets;  // forward order
  double exposed_ns = 0;
};

// `buckets` must cover the profile's parameters contiguously, in forward order.
Schedule simulate_schedule(const GradientProfile& profile, std::span<const GradientBucket> buckets,
                           const CostFunction& cost);

}  // namespace parity::analyzer
