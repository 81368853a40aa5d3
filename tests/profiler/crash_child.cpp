// Test helper for crash_test: records training-like steps into a trace until
// it is killed. Usage: crash_child TRACE.db sync|async
//   sync:  after each step, flush() and print "committed N"
//   async: after each step print "ended N" (the step end only requests a commit)
// Exits by itself after 60 s so that a failed test never leaves it running.
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "parity/profiler/recorder.hpp"

using namespace parity::profiler;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: crash_child TRACE.db sync|async\n");
    return 2;
  }
  const bool sync = std::string(argv[2]) == "sync";
  RecorderOptions options;
  options.path = argv[1];
  Recorder recorder(options);
  const NameId step_name = intern("step"), layer_name = intern("layer");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (int step = 0; std::chrono::steady_clock::now() < deadline; ++step) {
    {
      Scope scope(recorder, step_name, Category::kStep, step);
      for (int layer = 0; layer < 50; ++layer) Scope layer_scope(recorder, layer_name, Category::kLayer);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (sync) {
      recorder.flush();
      std::printf("committed %d\n", step);
    } else {
      std::printf("ended %d\n", step);
    }
    std::fflush(stdout);
  }
  return 0;
}
