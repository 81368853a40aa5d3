// parallel_for: runs work(0) ... work(count - 1) on a few threads, each taking
// the next item when it is done with one, so that a diff or compare holds at
// most `threads` items (a pair of tensors each) in memory at once.
#pragma once

#include <cstddef>
#include <functional>

namespace parity::analyzer {

struct ParallelOptions {
  unsigned threads = 0;  // 0: one per hardware thread; never more than the items
  // Called after each finished item, serialized (never two calls at once).
  std::function<void(std::size_t done, std::size_t total)> progress;
};

// The first exception thrown by any item stops the others from taking new
// items and is rethrown here once every thread has finished.
void parallel_for(std::size_t count, const ParallelOptions& options,
                  const std::function<void(std::size_t)>& work);

}  // namespace parity::analyzer
