// The Catch2 main of every suite. A warning or error logged through
// parity::log during a test fails the run (as in tiny-cuda-nn's tests): a
// test that expects one installs its own sink with ScopedLogCapture.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "parity/core/log.hpp"

namespace {
std::mutex unexpected_mutex;
std::vector<std::string> unexpected;
}  // namespace

int main(int argc, char** argv) {
  parity::log::set_sink([](parity::log::Level level, std::string_view message) {
    std::fprintf(stderr, "parity: %s: %.*s\n", std::string(parity::log::level_name(level)).c_str(),
                 static_cast<int>(message.size()), message.data());
    if (level >= parity::log::Level::kWarning) {
      std::lock_guard lock(unexpected_mutex);
      unexpected.emplace_back(message);
    }
  });
  const int failures = Catch::Session().run(argc, argv);
  std::lock_guard lock(unexpected_mutex);
  if (!unexpected.empty()) {
    std::fprintf(stderr, "FAILED: %zu unexpected warning(s) or error(s) were logged\n",
                 unexpected.size());
    return failures + 1;
  }
  return failures;
}
