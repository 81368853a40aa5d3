// RankTrace: what `parity tune-allreduce` reads from one rank's trace
// database: its parameters, each step's backward phase, exposed-communication
// wait (the `allreduce_wait` phase) and duration, every gradient-ready time,
// every AllReduce of a gradient bucket and the AllReduces of the trainer's
// calibration sweep (lane `allreduce_calibration`; docs/trace-schema.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "parity/profiler/allreduce_split.hpp"

namespace parity::analyzer {

struct RankStep {
  std::optional<std::int64_t> backward_start_ns, backward_end_ns;  // the `backward` phase
  std::optional<std::int64_t> allreduce_wait_ns;  // the step's `allreduce_wait` phase
  std::int64_t step_ns = 0;                       // the step range's duration
};

struct GradientReady {
  std::int64_t step = 0, param = 0, ts_ns = 0, bytes = 0;
};

struct BucketAllreduce {
  std::int64_t step = 0;
  profiler::GradientBucket bucket;
  std::int64_t bytes = 0, start_ns = 0, dur_ns = 0;
};

struct RankTrace {
  std::string path;
  std::int64_t rank = 0, world_size = 1;
  std::optional<std::string> split;  // meta trainer.allreduce_split
  std::vector<std::string> param_names;
  std::map<std::int64_t, RankStep> steps;
  std::vector<GradientReady> ready;  // by (step, param); the latest row of each pair
  std::vector<BucketAllreduce> allreduces;
  std::vector<BucketAllreduce> calibration;  // in the order they ran
};

// Throws parity::Error naming the file for one that is not a trace, or a
// trace without parameters, gradient-ready times, AllReduce rows or backward
// phases (a run that was not recorded data-parallel with parity-train).
RankTrace load_rank_trace(const std::filesystem::path& path);

// The hint of those errors: how to record a trace the tuner can read.
inline constexpr const char* kRecordHint =
    "record a data-parallel run with `mpirun -np 2 parity-train train --config CONFIG --trace "
    "RUN.db`, which writes RUN.rank0.db, RUN.rank1.db, ..., and pass every rank's file";

}  // namespace parity::analyzer
