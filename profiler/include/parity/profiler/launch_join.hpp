// LaunchIndex: the kernel-to-launch join. GPU work and the CUDA API call that
// queued it share a correlation id (every kernel of a CUDA Graph shares its
// launch's); the index keeps the calls sorted by that id and finds a work
// item's launch by binary search. Calls sharing an id: the first given wins.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace parity::profiler {

// Call: any struct with a `std::int64_t correlation_id`.
template <class Call>
class LaunchIndex {
 public:
  LaunchIndex() = default;
  explicit LaunchIndex(std::vector<Call> calls) : calls_(std::move(calls)) {
    const auto by_id = [](const Call& a, const Call& b) {
      return a.correlation_id < b.correlation_id;
    };
    if (!std::is_sorted(calls_.begin(), calls_.end(), by_id))
      std::stable_sort(calls_.begin(), calls_.end(), by_id);
  }

  // The launch of the work with this correlation id; nullptr if the trace has none.
  const Call* find(std::int64_t correlation) const {
    const auto it = std::lower_bound(
        calls_.begin(), calls_.end(), correlation,
        [](const Call& call, std::int64_t id) { return call.correlation_id < id; });
    return it != calls_.end() && it->correlation_id == correlation ? &*it : nullptr;
  }
  const Call* find(std::optional<std::int64_t> correlation) const {
    return correlation ? find(*correlation) : nullptr;
  }

  std::size_t size() const { return calls_.size(); }

 private:
  std::vector<Call> calls_;
};

}  // namespace parity::profiler
