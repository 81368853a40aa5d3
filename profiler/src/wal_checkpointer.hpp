// WalCheckpointer: copies a trace's WAL back into the database file from its
// own thread and connection (PASSIVE checkpoints), so the recorder's writer
// thread never stops inserting to do it. Checkpoints cost about a fifth of
// the writer's time when it does them itself (docs/results.md).
#pragma once

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

namespace parity::profiler {

class WalCheckpointer {
 public:
  WalCheckpointer(std::filesystem::path path, std::chrono::milliseconds interval);
  ~WalCheckpointer();  // stops the thread; the last checkpoint is the writer's
  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

 private:
  void run();

  std::filesystem::path path_;
  std::chrono::milliseconds interval_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace parity::profiler
