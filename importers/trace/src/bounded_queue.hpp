// A queue between two threads that holds at most `capacity` items, so a fast
// producer waits for a slow consumer instead of filling memory; either side
// can stop it, which wakes the other.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>

namespace parity::importers::trace {

template <class Item>
class BoundedQueue {
 public:
  explicit BoundedQueue(std::size_t capacity) : capacity_(capacity) {}

  // Waits for room; false once the queue is stopped (the item is dropped).
  bool push(Item item) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return stopped_ || items_.size() < capacity_; });
    if (stopped_) return false;
    items_.push_back(std::move(item));
    changed_.notify_all();
    return true;
  }
  // Waits for an item; nullopt once the queue is stopped and empty.
  std::optional<Item> pop() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return stopped_ || !items_.empty(); });
    if (items_.empty()) return std::nullopt;
    Item item = std::move(items_.front());
    items_.pop_front();
    changed_.notify_all();
    return item;
  }
  void stop() {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    changed_.notify_all();
  }

 private:
  const std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Item> items_;
  bool stopped_ = false;
};

}  // namespace parity::importers::trace
