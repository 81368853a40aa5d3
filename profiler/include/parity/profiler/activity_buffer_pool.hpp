// ActivityBufferPool: the buffers CUPTI fills with activity records.
//
// CUPTI asks for a buffer on the thread that produces records (the training
// thread itself, since CUDA 13 keeps buffers per thread), so handing one out
// must not allocate or fault pages there. The pool hands out buffers
// allocated and touched beforehand; each time a full buffer comes back it
// measures the record rate and tops the free list up, on the completing
// thread, to cover `headroom` at the highest rate seen. Past `max_bytes` it
// refuses: CUPTI then drops records and counts them, and the trace says so.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace parity::profiler {

struct ActivityBufferPoolOptions {
  std::size_t buffer_bytes = std::size_t{8} << 20;  // CUPTI suggests 1-10 MB
  std::size_t max_bytes = std::size_t{512} << 20;
  std::chrono::milliseconds headroom{500};  // free buffers cover this long at the peak rate
  // The rate is measured over windows at least this long, so that a flush
  // handing back many part-filled buffers at once does not read as a burst.
  std::chrono::milliseconds rate_window{100};
  std::size_t initial_buffers = 2;
};

struct ActivityBufferPoolStats {
  std::size_t buffers = 0;           // allocated
  std::size_t free = 0;              // ready to hand out
  std::size_t peak_in_use = 0;       // most buffers CUPTI held at once
  std::uint64_t refused = 0;         // requests answered with no buffer
  double peak_bytes_per_second = 0;  // highest record rate over one rate window
};

class ActivityBufferPool {
 public:
  explicit ActivityBufferPool(ActivityBufferPoolOptions options = {});
  ~ActivityBufferPool();
  ActivityBufferPool(const ActivityBufferPool&) = delete;
  ActivityBufferPool& operator=(const ActivityBufferPool&) = delete;

  // A free buffer (8-byte aligned, buffer_bytes long, all zero), allocated
  // here only when none is free and the pool is under max_bytes; empty when
  // refused. Zeroed buffers let CUPTI skip zeroing them itself, which it
  // would do on the thread that asks (the training thread).
  std::span<std::uint8_t> acquire();
  // Takes back a buffer CUPTI filled with `valid_bytes` of records at
  // `now_ns` (any steady clock), zeroes it on the caller's thread (CUPTI's,
  // for a completed buffer), then grows the free list to the target.
  void release(std::uint8_t* buffer, std::size_t valid_bytes, std::int64_t now_ns);

  // Free buffers that cover the headroom at the peak rate (at least 1).
  std::size_t target_free_buffers() const;
  ActivityBufferPoolStats stats() const;
  std::size_t buffer_bytes() const { return options_.buffer_bytes; }

 private:
  std::uint8_t* allocate_locked();
  std::size_t target_free_locked() const;

  ActivityBufferPoolOptions options_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<std::uint8_t[]>> owned_;
  std::vector<std::uint8_t*> free_;
  std::size_t in_use_ = 0;
  ActivityBufferPoolStats stats_;
  std::int64_t window_start_ns_ = -1;  // first release of the current rate window
  std::uint64_t window_bytes_ = 0;     // bytes released since, after that first release
};

}  // namespace parity::profiler
