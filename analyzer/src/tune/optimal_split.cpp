// The exact split. F(i) is the earliest time the buckets covering parameters
// i..n-1 can all be reduced. The bucket holding parameter i is some i..j; it
// starts once its gradients are ready (R(i..j), their latest ready time) and
// the buckets of j+1..n-1 are done, which is F(j+1) at the earliest:
//   F(n) = -inf,  F(i) = min over j >= i of E(max(R(i..j), F(j+1)), bytes(i..j))
// where E(start, bytes) is the AllReduce's end (allreduce_end: busy while
// backward runs, idle after). The recurrence is exact for any cost: E never
// decreases as the start grows, so the end of bucket i..j never decreases as
// the buckets after it end later, and finishing those as early as possible is
// always best. The exposed time is F(0) minus the
// latest ready time, which no split changes.
//
// Many splits often reach F(0): the early buckets can be cut anywhere once
// they finish before the late ones start. Of those, the one with the fewest
// buckets is returned (every AllReduce has a launch cost the model leaves
// out): G_k(i), the earliest finish of i..n-1 in exactly k buckets, follows
// the same recurrence with G_k-1(j+1) in place of F(j+1), and is computed for
// k = 1, 2, ... until G_k(0) reaches F(0).
#include <algorithm>
#include <cmath>
#include <limits>

#include "parity/analyzer/tune/split_optimizer.hpp"

namespace parity::analyzer {
namespace {

constexpr double kNever = -std::numeric_limits<double>::infinity();
constexpr double kUnreachable = std::numeric_limits<double>::infinity();

// The latest ready time and the busy and idle costs of every bucket i..j (a
// triangle, by rows).
class BucketTable {
 public:
  BucketTable(const GradientProfile& profile, const AllreduceCost& cost)
      : n_(profile.ready_ns.size()), backward_end_(profile.backward_end_ns) {
    entries_.reserve(n_ * (n_ + 1) / 2);
    for (std::size_t i = 0; i < n_; ++i) {
      double ready = kNever, bytes = 0;
      for (std::size_t j = i; j < n_; ++j) {
        ready = std::max(ready, profile.ready_ns[j]);
        bytes += static_cast<double>(profile.bytes[j]);
        entries_.push_back({ready, cost.busy(bytes), cost.idle(bytes)});
      }
    }
  }
  // The end of bucket i..j when the buckets after it end at `after`.
  double end(std::size_t i, std::size_t j, double after) const {
    const Entry& entry = entries_[i * n_ - i * (i - 1) / 2 + (j - i)];
    return allreduce_end(std::max(entry.ready, after), entry.busy, entry.idle, backward_end_);
  }

 private:
  struct Entry {
    double ready, busy, idle;
  };
  std::size_t n_;
  double backward_end_;
  std::vector<Entry> entries_;
};

double earliest_finish(const BucketTable& table, std::size_t n) {
  std::vector<double> finish(n + 1, kNever);
  for (std::size_t i = n; i-- > 0;) {
    finish[i] = kUnreachable;
    for (std::size_t j = i; j < n; ++j)
      finish[i] = std::min(finish[i], table.end(i, j, finish[j + 1]));
  }
  return finish[0];
}

}  // namespace

std::vector<GradientBucket> optimal_split(const GradientProfile& profile,
                                          const AllreduceCost& cost) {
  const std::size_t n = profile.ready_ns.size();
  if (n == 0) return {};
  const BucketTable table(profile, cost);
  const double best = earliest_finish(table, n);
  const double reached = best + 1e-9 * std::max(1.0, std::fabs(best));

  // finish[i] = G_k(i); ends[k-2][i]: where the first of k buckets from i ends.
  std::vector<double> finish(n + 1, kUnreachable), next(n + 1);
  for (std::size_t i = 0; i < n; ++i) finish[i] = table.end(i, n - 1, kNever);
  std::vector<std::vector<std::size_t>> ends;
  for (std::size_t k = 2; finish[0] > reached; ++k) {
    std::fill(next.begin(), next.end(), kUnreachable);
    std::vector<std::size_t>& end = ends.emplace_back(n, n);
    for (std::size_t i = 0; i + k <= n; ++i)
      for (std::size_t j = i; j + k <= n; ++j) {  // k - 1 buckets hold j+1..n-1
        const double value = table.end(i, j, finish[j + 1]);
        if (value < next[i]) {
          next[i] = value;
          end[i] = j;
        }
      }
    finish.swap(next);
  }
  std::vector<GradientBucket> buckets;
  std::size_t first = 0;
  for (auto layer = ends.rbegin(); layer != ends.rend(); ++layer) {
    const std::size_t last = (*layer)[first];
    buckets.push_back({static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(last)});
    first = last + 1;
  }
  buckets.push_back({static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(n - 1)});
  return buckets;
}

}  // namespace parity::analyzer
