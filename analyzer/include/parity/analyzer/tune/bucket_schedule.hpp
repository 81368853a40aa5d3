// The in-order AllReduce schedule of a gradient split, as parity-train runs it
// (docs/tune-allreduce.md): one communication thread per rank takes the
// buckets from the last one (highest parameter indices) down to bucket 0; a
// bucket starts once all its gradients are ready on every rank and the bucket
// after it has finished:
//   start_k = max(ready_k, end_k+1),  end_k = allreduce_end(start_k, bytes_k)
// where ready_k is the latest ready time of the bucket's parameters. An
// AllReduce that runs while backward still computes shares the rank's cores
// (or SMs) with it and costs `busy`; after backward it costs `idle`; one that
// starts busy and outlives backward finishes the rest of its work at the idle
// rate. The exposed communication is end_0 minus the time the last gradient
// was ready.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "parity/core/allreduce_split.hpp"

namespace parity::analyzer {

// When each parameter's gradient is ready (ns from the start of backward) and
// what it adds to an AllReduce message, in forward order.
struct GradientProfile {
  std::vector<double> ready_ns;
  std::vector<std::uint64_t> bytes;
  // When backward ends (ns from its start): AllReduces after it run idle.
  double backward_end_ns = 0;
  double last_ready_ns() const;
  std::uint64_t total_bytes() const;
};

// The time (ns) of one AllReduce of a message of this many bytes.
using CostFunction = std::function<double(double bytes)>;

// An AllReduce's cost while backward runs beside it and after.
struct AllreduceCost {
  CostFunction busy, idle;
  AllreduceCost(CostFunction busy_cost, CostFunction idle_cost)
      : busy(std::move(busy_cost)), idle(std::move(idle_cost)) {}
  // One cost whatever else runs (a link model, a dedicated network engine).
  AllreduceCost(const CostFunction& cost)
      : busy(cost), idle(cost) {}  // NOLINT: implicit on purpose
};

// When an AllReduce that starts at `start_ns` ends, given its busy and idle
// times: all busy if it ends before backward does, all idle if it starts
// after; otherwise the fraction left when backward ends goes at the idle rate.
// Never decreases as start_ns grows, which keeps the split optimiser exact.
double allreduce_end(double start_ns, double busy_ns, double idle_ns, double backward_end_ns);

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
                           const AllreduceCost& cost);

}  // namespace parity::analyzer
