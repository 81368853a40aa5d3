// The exact split: a dynamic program over contiguous buckets, in the order
// the lane runs them (from the last parameter down to parameter 0). After the
// buckets covering parameters i..n-1 have run, a rank stands at a LaneState:
// when the lane is free and how far backward has got by then. From a state the
// rest of the schedule depends on nothing else, so per position i only the
// states that no other state dominates are kept (a Pareto front), and every
// bucket i'..i-1 is tried from each:
//   front(n) = {lane free at 0, no progress, 0 buckets}
//   front(j) = the undominated states of reduce_bucket(s, bucket j..i-1)
//              over every i > j and every state s of front(i)
// The answer is the state of front(0) that finishes earliest (done: backward
// and the lane both free); among those, the one whose lane frees earliest
// (least exposed communication); among those, the fewest buckets (every
// AllReduce has a launch cost the model leaves out).
//
// Which states dominate depends on whether AllReduces slow backward:
//   - they do not (no loss): A dominates B if it is free no later, has no more
//     buckets and lags no more (lag: the lane's free time less backward's
//     progress). Had A's lane idled until B's free time, backward would be at
//     least as far as B's; and without slowdown an AllReduce that starts
//     earlier never ends later (busy costs at least the idle ones), so A ends
//     no worse. Per bucket count one state survives until backward ends:
//     exact, O(n^3).
//   - they do: starting an AllReduce earlier slows more of backward, so only
//     a state free no later AND with backward no less far dominates (its next
//     AllReduce starts no later, leaves backward no less far, ends no later).
//     Those fronts grow exponentially (a million states 30 parameters into
//     ResNet-50), so states are told apart only by kResolution of backward's
//     duration in progress, and not by bucket count: a front holds at most
//     1 / kResolution states, the answer is within about kResolution x
//     backward per bucket of the optimum, and of equal answers the fewest
//     buckets is preferred but not guaranteed.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "parity/analyzer/tune/split_optimizer.hpp"

namespace parity::analyzer {
namespace {

// The latest ready point, bytes and busy and idle costs of every bucket i..j (a
// triangle, by rows).
class BucketTable {
 public:
  BucketTable(const GradientProfile& profile, const AllreduceCost& cost)
      : n_(profile.ready_ns.size()) {
    entries_.reserve(n_ * (n_ + 1) / 2);
    for (std::size_t i = 0; i < n_; ++i) {
      double ready = 0, bytes = 0;
      for (std::size_t j = i; j < n_; ++j) {
        ready = std::max(ready, profile.ready_ns[j]);
        bytes += static_cast<double>(profile.bytes[j]);
        entries_.push_back({ready, bytes, cost.busy(bytes), cost.idle(bytes)});
      }
    }
  }
  struct Entry {
    double ready, bytes, busy, idle;
  };
  const Entry& at(std::size_t i, std::size_t j) const {
    return entries_[i * n_ - i * (i - 1) / 2 + (j - i)];
  }

 private:
  std::size_t n_;
  std::vector<Entry> entries_;
};

struct State {
  LaneState lane;
  std::uint32_t buckets = 0;
  // Where it came from: the front of position `from` (the bucket ran
  // parameters this position..from-1), its state number `parent` there.
  std::uint32_t from = 0, parent = 0;
};

constexpr double kResolution = 1e-3;

// The greatest standing among kept states of at most k buckets (a Fenwick
// tree over bucket counts, for prefix maxima). Counts above `classes` are
// counted as `classes`: with 0, bucket counts do not matter.
class ProgressByBuckets {
 public:
  explicit ProgressByBuckets(std::size_t classes)
      : classes_(classes), tree_(classes + 2, -std::numeric_limits<double>::infinity()) {}
  void add(std::uint32_t buckets, double progress) {
    for (std::size_t k = std::min<std::size_t>(buckets, classes_) + 1; k < tree_.size();
         k += k & (~k + 1))
      tree_[k] = std::max(tree_[k], progress);
  }
  double best(std::uint32_t buckets) const {
    double best = -std::numeric_limits<double>::infinity();
    for (std::size_t k = std::min<std::size_t>(buckets, classes_) + 1; k > 0; k -= k & (~k + 1))
      best = std::max(best, tree_[k]);
    return best;
  }

 private:
  std::size_t classes_;
  std::vector<double> tree_;
};

// How far a state is, to compare states free no later: without slowdown
// minus its lag, with it backward's progress.
double standing(const State& state, bool exact) {
  return exact ? state.lane.progress_ns - state.lane.free_ns : state.lane.progress_ns;
}

// Keeps the states no earlier-freed state matches in standing (within
// `slack`) with no more buckets (of `classes`); with ties, one.
void prune(std::vector<State>& front, bool exact, std::size_t classes, double slack) {
  std::sort(front.begin(), front.end(), [exact](const State& a, const State& b) {
    if (a.lane.free_ns != b.lane.free_ns) return a.lane.free_ns < b.lane.free_ns;
    if (standing(a, exact) != standing(b, exact)) return standing(a, exact) > standing(b, exact);
    return a.buckets < b.buckets;
  });
  ProgressByBuckets kept_progress(classes);
  std::vector<State> kept;
  for (const State& state : front) {
    if (kept_progress.best(state.buckets) >= standing(state, exact) - slack) continue;
    kept_progress.add(state.buckets, standing(state, exact));
    kept.push_back(state);
  }
  front.swap(kept);
}

// Within rounding of the best: the same.
double reach(double best) { return best + 1e-9 * std::max(1.0, std::fabs(best)); }

const State& best_final(const GradientProfile& profile, const std::vector<State>& front) {
  double done = INFINITY;
  for (const State& state : front) done = std::min(done, done_ns(profile, state.lane));
  double free = INFINITY;
  for (const State& state : front)
    if (done_ns(profile, state.lane) <= reach(done)) free = std::min(free, state.lane.free_ns);
  const State* best = nullptr;
  for (const State& state : front)
    if (done_ns(profile, state.lane) <= reach(done) && state.lane.free_ns <= reach(free) &&
        (!best || state.buckets < best->buckets))
      best = &state;
  return *best;
}

}  // namespace

std::vector<profiler::GradientBucket> optimal_split(const GradientProfile& profile,
                                                    const AllreduceCost& cost) {
  const std::size_t n = profile.ready_ns.size();
  if (n == 0) return {};
  const BucketTable table(profile, cost);
  // Exact up to rounding without slowdown; at kResolution with it.
  const bool exact = !profile.backward_loss.any();
  const double slack = (exact ? 1e-9 : kResolution) * std::max(1.0, profile.compute_end_ns());
  const std::size_t classes = exact ? n : 0;
  std::vector<std::vector<State>> fronts(n + 1);
  std::vector<std::size_t> pruned_size(n + 1, 0);
  fronts[n].push_back({});
  for (std::size_t i = n; i > 0; --i) {
    prune(fronts[i], exact, classes, slack);
    for (std::size_t s = 0; s < fronts[i].size(); ++s) {
      const State state = fronts[i][s];
      for (std::size_t j = i; j-- > 0;) {
        const BucketTable::Entry& bucket = table.at(j, i - 1);
        const BucketStep step = reduce_bucket(profile, state.lane, bucket.ready, bucket.bytes,
                                              bucket.busy, bucket.idle);
        fronts[j].push_back({step.after, state.buckets + 1, static_cast<std::uint32_t>(i),
                             static_cast<std::uint32_t>(s)});
        // Memory stays bounded by pruning on the way.
        if (fronts[j].size() >= pruned_size[j] * 2 + 1024) {
          prune(fronts[j], exact, classes, slack);
          pruned_size[j] = fronts[j].size();
        }
      }
    }
  }
  prune(fronts[0], exact, classes, slack);
  std::vector<profiler::GradientBucket> buckets;
  for (State state = best_final(profile, fronts[0]); state.buckets > 0;) {
    const std::size_t first = buckets.empty() ? 0 : buckets.back().last + 1;
    buckets.push_back({static_cast<std::uint32_t>(first), state.from - 1});
    state = fronts[state.from][state.parent];
  }
  return buckets;
}

}  // namespace parity::analyzer
