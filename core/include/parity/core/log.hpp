// Logging for libraries and tools: a level, a message, and a replaceable sink.
// Libraries never print directly; tests install a sink that turns warnings
// into failures.
#pragma once

#include <functional>
#include <string_view>

namespace parity::log {

enum class Level { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

using Sink = std::function<void(Level, std::string_view)>;

// Replaces the sink (thread-safe) and returns the previous one. The default
// sink writes "parity: warning: ..." lines to stderr.
Sink set_sink(Sink sink);
// Messages below this level are discarded before reaching the sink.
void set_min_level(Level level);

void write(Level level, std::string_view message);
inline void debug(std::string_view m) { write(Level::kDebug, m); }
inline void info(std::string_view m) { write(Level::kInfo, m); }
inline void warning(std::string_view m) { write(Level::kWarning, m); }
inline void error(std::string_view m) { write(Level::kError, m); }

std::string_view level_name(Level level);

}  // namespace parity::log
