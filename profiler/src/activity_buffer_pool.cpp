#include "parity/profiler/activity_buffer_pool.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "parity/core/error.hpp"

namespace parity::profiler {

ActivityBufferPool::ActivityBufferPool(ActivityBufferPoolOptions options) : options_(options) {
  if (options_.buffer_bytes < 1024 || options_.buffer_bytes % 8 != 0)
    throw Error("activity buffers must be a multiple of 8 bytes and at least 1 KiB",
                "buffer_bytes = " + std::to_string(options_.buffer_bytes),
                "CUPTI suggests buffers of 1 to 10 MB; the default is 8 MiB");
  if (options_.max_bytes < options_.buffer_bytes)
    throw Error(
        "the activity buffer limit is below one buffer",
        "max_bytes = " + std::to_string(options_.max_bytes),
        "allow at least one buffer (buffer_bytes = " + std::to_string(options_.buffer_bytes) + ")");
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < options_.initial_buffers; ++i) {
    std::uint8_t* buffer = allocate_locked();
    if (!buffer) break;
    free_.push_back(buffer);
  }
}

ActivityBufferPool::~ActivityBufferPool() = default;

// new[] of uint8_t is aligned to __STDCPP_DEFAULT_NEW_ALIGNMENT__ (16 on
// x86-64), enough for CUPTI's 8. The pages are touched here so that CUPTI's
// first records do not fault them in on the training thread.
std::uint8_t* ActivityBufferPool::allocate_locked() {
  if ((owned_.size() + 1) * options_.buffer_bytes > options_.max_bytes) return nullptr;
  owned_.push_back(std::make_unique<std::uint8_t[]>(options_.buffer_bytes));
  std::uint8_t* buffer = owned_.back().get();
  std::memset(buffer, 0, options_.buffer_bytes);
  stats_.buffers = owned_.size();
  return buffer;
}

std::span<std::uint8_t> ActivityBufferPool::acquire() {
  std::lock_guard lock(mutex_);
  std::uint8_t* buffer = nullptr;
  if (!free_.empty()) {
    buffer = free_.back();
    free_.pop_back();
  } else {
    buffer = allocate_locked();
  }
  if (!buffer) {
    ++stats_.refused;
    return {};
  }
  stats_.peak_in_use = std::max(stats_.peak_in_use, ++in_use_);
  return {buffer, options_.buffer_bytes};
}

void ActivityBufferPool::release(std::uint8_t* buffer, std::size_t valid_bytes,
                                 std::int64_t now_ns) {
  // All of it: a record left incomplete may lie beyond valid_bytes.
  std::memset(buffer, 0, options_.buffer_bytes);
  std::lock_guard lock(mutex_);
  if (window_start_ns_ < 0) {
    window_start_ns_ = now_ns;  // the buffer's fill time is unknown: it opens the window
  } else {
    window_bytes_ += valid_bytes;
    const std::int64_t elapsed = now_ns - window_start_ns_;
    if (elapsed >= std::chrono::nanoseconds(options_.rate_window).count()) {
      const double rate = static_cast<double>(window_bytes_) * 1e9 / static_cast<double>(elapsed);
      stats_.peak_bytes_per_second = std::max(stats_.peak_bytes_per_second, rate);
      window_start_ns_ = now_ns;
      window_bytes_ = 0;
    }
  }
  free_.push_back(buffer);
  --in_use_;
  while (free_.size() < target_free_locked()) {
    std::uint8_t* added = allocate_locked();
    if (!added) break;
    free_.push_back(added);
  }
}

std::size_t ActivityBufferPool::target_free_locked() const {
  const double covered_bytes =
      stats_.peak_bytes_per_second * std::chrono::duration<double>(options_.headroom).count();
  const auto buffers = static_cast<std::size_t>(
      std::ceil(covered_bytes / static_cast<double>(options_.buffer_bytes)));
  return std::max<std::size_t>(buffers, 1);
}

std::size_t ActivityBufferPool::target_free_buffers() const {
  std::lock_guard lock(mutex_);
  return target_free_locked();
}

ActivityBufferPoolStats ActivityBufferPool::stats() const {
  std::lock_guard lock(mutex_);
  ActivityBufferPoolStats stats = stats_;
  stats.free = free_.size();
  return stats;
}

}  // namespace parity::profiler
