// The traces the two-run tests open, written at test time into a directory
// the test owns: two different synthetic runs, and a PyTorch profiler trace
// (Chrome JSON) to open as a foreign second run.
#pragma once

#include <filesystem>

namespace panels_test {

struct TwoRuns {
  std::filesystem::path a, b;
};

// a.db: a synthetic GPU run of about 30,000 events (seed 1); b.db: one of
// about 20,000 (seed 2), so fewer steps, each timed differently.
TwoRuns write_two_runs(const std::filesystem::path& dir);

// The legacy PyTorch profiler's layout: two steps (ProfilerStep#1 and #2),
// each an aten::linear of 50 us holding an aten::addmm of 30 us. Returns the path.
std::filesystem::path write_profiler_json(const std::filesystem::path& path);

}  // namespace panels_test
