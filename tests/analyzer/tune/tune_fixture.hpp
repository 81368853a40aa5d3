// A data-parallel run written with profiler::TraceWriter the way parity-train
// writes one (docs/trace-schema.md, docs/tune-allreduce.md): per rank and step
// a step range with its backward and allreduce_wait phases, every gradient's
// ready time, and one AllReduce per bucket run by the in-order schedule, with
// a chosen cost per message size. Every rank starts backward at the same
// moment, so the tuner's model reproduces the run exactly. Backward ends
// `backward_tail` after the rank's last gradient; allreduce_wait follows it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "parity/profiler/allreduce_split.hpp"

namespace tune_fixture {

struct Run {
  std::vector<std::int64_t> param_bytes{4'000, 1'000'000, 2'000'000, 500'000, 3'000'000, 800'000};
  // Per rank: each parameter's ready time in ns after backward starts.
  std::vector<std::vector<std::int64_t>> ready{
      {6'000'000, 5'000'000, 4'000'000, 3'000'000, 2'000'000, 1'000'000},
      {6'200'000, 4'800'000, 4'100'000, 3'300'000, 1'900'000, 1'200'000}};
  std::vector<parity::profiler::GradientBucket> buckets{{0, 1}, {2, 3}, {4, 5}};
  std::function<std::int64_t(std::int64_t bytes)> cost = [](std::int64_t bytes) {
    return 50'000 + bytes / 10;
  };
  int steps = 4;               // step 0 is slower: warm-up
  std::string split_meta;      // meta trainer.allreduce_split; empty: none
  bool allreduce_wait = true;  // write the allreduce_wait phase
  int world_size = 0;          // meta world_size; 0: the number of ranks
  std::int64_t backward_tail = 100'000;
  // Message sizes of a calibration sweep before step 0 (lane
  // allreduce_calibration), each once, costing calibration_cost.
  std::vector<std::int64_t> calibration_bytes;
  std::function<std::int64_t(std::int64_t bytes)> calibration_cost = [](std::int64_t bytes) {
    return 1'000 + bytes / 20;
  };
};

inline constexpr std::int64_t kWarmUpFactor = 3;  // step 0's gradients are this much later

// Writes `base`.rank0.db, `base`.rank1.db, ... (base without extension).
std::vector<std::filesystem::path> write_run(const std::filesystem::path& base, const Run& run);

// The exposed communication the run's schedule gives in a steady step (after
// the last gradient), and the wait it costs the step (after backward).
std::int64_t expected_exposed_ns(const Run& run);
std::int64_t expected_wait_ns(const Run& run);

}  // namespace tune_fixture
