#include "parity/core/log.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>

namespace parity::log {
namespace {

void stderr_sink(Level level, std::string_view message) {
  std::string line = "parity: ";
  line += level_name(level);
  line += ": ";
  line += message;
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stderr);
}

std::mutex& sink_mutex() {
  static std::mutex mutex;
  return mutex;
}
Sink& current_sink() {
  static Sink sink = stderr_sink;
  return sink;
}
std::atomic<int> min_level{static_cast<int>(Level::kInfo)};

}  // namespace

Sink set_sink(Sink sink) {
  std::lock_guard lock(sink_mutex());
  Sink previous = std::move(current_sink());
  current_sink() = sink ? std::move(sink) : Sink(stderr_sink);
  return previous;
}

void set_min_level(Level level) { min_level.store(static_cast<int>(level)); }

void write(Level level, std::string_view message) {
  if (static_cast<int>(level) < min_level.load(std::memory_order_relaxed)) return;
  std::lock_guard lock(sink_mutex());
  current_sink()(level, message);
}

std::string_view level_name(Level level) {
  switch (level) {
    case Level::kDebug: return "debug";
    case Level::kInfo: return "info";
    case Level::kWarning: return "warning";
    case Level::kError: return "error";
  }
  return "unknown";
}

}  // namespace parity::log
