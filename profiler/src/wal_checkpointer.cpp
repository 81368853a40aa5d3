#include "wal_checkpointer.hpp"

#include <sqlite3.h>

#include <string>

#include "parity/core/log.hpp"
#include "parity/profiler/sqlite.hpp"

namespace parity::profiler {

WalCheckpointer::WalCheckpointer(std::filesystem::path path, std::chrono::milliseconds interval)
    : path_(std::move(path)), interval_(interval), thread_([this] { run(); }) {}

WalCheckpointer::~WalCheckpointer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void WalCheckpointer::run() {
  try {
    sql::Database db(path_, sql::Database::Mode::kCreate);
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, interval_, [this] { return stopping_; })) {
      lock.unlock();
      // PASSIVE never waits for the writer or readers; SQLITE_BUSY only means
      // another checkpoint was running, which is fine.
      const int code =
          sqlite3_wal_checkpoint_v2(db.handle(), nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
      lock.lock();
      if (code != SQLITE_OK && code != SQLITE_BUSY) {
        log::warning("trace checkpoint failed (" + std::string(sqlite3_errstr(code)) +
                     "); the writer will checkpoint when it finishes");
        return;
      }
    }
  } catch (const std::exception& error) {
    log::warning(std::string("trace checkpointer stopped: ") + error.what());
  }
}

}  // namespace parity::profiler
