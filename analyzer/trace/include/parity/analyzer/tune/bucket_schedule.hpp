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
// rate.
//
// The sharing goes both ways: an AllReduce of b bytes during backward takes
// `backward_loss`'s rate for its size x b of backward's compute (0: none, a
// dedicated network engine; backward_contention.hpp fits it), spread over its
// busy time: backward advances at rate 1 - loss(b) x b / busy(b) while it runs. The
// profile's times are therefore backward's own progress (ns of its work, as
// it runs alone); the schedule turns them into wall times. A split that
// reduces more during backward hides more communication but lengthens
// backward.
//   exposed  the last AllReduce's end minus when the last gradient was ready
//   wait     what the step waits after backward: the last AllReduce's end
//            minus backward's end, at least 0
//   done     when backward and every AllReduce have ended: what a split
//            changes in the step time, and what the optimiser minimises
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "parity/analyzer/tune/contention_loss.hpp"
#include "parity/profiler/allreduce_split.hpp"

namespace parity::analyzer {

// When each parameter's gradient is ready (backward's own progress in ns from
// its start) and what it adds to an AllReduce message, in forward order.
struct GradientProfile {
  std::vector<double> ready_ns;
  std::vector<std::uint64_t> bytes;
  // When backward ends, in the same progress: AllReduces after it run idle.
  double backward_end_ns = 0;
  // Backward's compute lost to each byte an AllReduce reduces beside it.
  ContentionLoss backward_loss;
  double last_ready_ns() const;
  // Backward's speed, a fraction of its own, while an AllReduce of `bytes`
  // that takes `busy_ns` runs beside it: never below kLeastBackwardRate.
  double backward_rate(double message_bytes, double busy_ns) const;
  // Backward's whole work: its end, and never before its last gradient.
  double compute_end_ns() const;
  std::uint64_t total_bytes() const;
};

inline constexpr double kLeastBackwardRate = 0.05;

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
// Never decreases as start_ns grows.
double allreduce_end(double start_ns, double busy_ns, double idle_ns, double backward_end_ns);

// Where a rank stands when its communication lane becomes free: the wall time
// (ns from backward's start) and backward's own progress by then. Backward
// starts with the lane free.
struct LaneState {
  double free_ns = 0;
  double progress_ns = 0;
};

// One bucket's AllReduce from `before`: it starts when the lane is free and
// backward has progressed to the bucket's ready point (at full speed in
// between), slows backward while it runs, and leaves the lane at `after`.
struct BucketStep {
  double start_ns = 0, end_ns = 0;
  double progress_at_start_ns = 0;
  LaneState after;
};
BucketStep reduce_bucket(const GradientProfile& profile, LaneState before, double ready_ns,
                         double bytes, double busy_ns, double idle_ns);

// Wall time at which backward's progress reaches `progress_ns` when the lane
// stays idle from `state` on (for a point it passed already: none).
double wall_time_after(LaneState state, double progress_ns);

// When backward and the lane have both finished, after the last bucket left
// the lane at `state`.
double done_ns(const GradientProfile& profile, LaneState state);

struct BucketTiming {
  profiler::GradientBucket bucket;
  std::uint64_t bytes = 0;
  double ready_ns = 0, start_ns = 0, end_ns = 0;  // wall times
};

struct Schedule {
  std::vector<BucketTiming> buckets;  // forward order
  double exposed_ns = 0, wait_ns = 0, done_ns = 0;
  double backward_ns = 0;  // backward's wall duration, slowed by the AllReduces beside it
};

// `buckets` must cover the profile's parameters contiguously, in forward order.
Schedule simulate_schedule(const GradientProfile& profile,
                           std::span<const profiler::GradientBucket> buckets,
                           const AllreduceCost& cost);

}  // namespace parity::analyzer
