// TuneInput: the traces of a run's ranks combined into what the AllReduce
// tuner models (docs/tune-allreduce.md): each parameter's gradient-ready time
// (per rank and step an offset from that rank's backward start; the latest
// rank per parameter; the median over steps), the traced AllReduces as cost
// samples (per step and bucket the shortest duration across ranks: the rank
// that arrived last saw the pure transfer), sorted by what ran beside them on
// that rank: `busy` ended before backward did, `idle` started after it (or
// belongs to the calibration sweep), the rest straddle the end of backward
// (their busy cost follows once the idle costs are known); and the measured
// step time and exposed communication.
//
// All of it is in one frame: each rank's step aligned at its backward start.
// Backward often runs on after its last gradient (the input's gradient, the
// phase's bookkeeping): that tail hides communication too, so the step waits
// only for the AllReduces that end later than backward does.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "parity/analyzer/tune/backward_contention.hpp"
#include "parity/analyzer/tune/bucket_schedule.hpp"
#include "parity/analyzer/tune/cost_table.hpp"
#include "parity/analyzer/tune/rank_trace.hpp"
#include "parity/analyzer/tune/straddle_sample.hpp"

namespace parity::analyzer {

struct TuneInput {
  std::vector<std::string> paths;  // by rank
  std::int64_t world_size = 1;     // as traced
  std::vector<std::string> param_names;
  GradientProfile profile;  // wall times: backward_rate_during_allreduce 1
  // Every rank's backward in every step used, and those of the runs added
  // with add_cost_runs: what the contention fit reads.
  std::vector<BackwardRecord> backward, other_backward;
  std::vector<profiler::GradientBucket>
      traced_buckets;        // the split the run used, from its AllReduces
  std::string traced_split;  // meta trainer.allreduce_split, else the buckets' index form
  std::vector<AllreduceSample> samples;          // one per step and bucket
  std::vector<AllreduceSample> busy_samples;     // of those, the ones during backward
  std::vector<AllreduceSample> idle_samples;     // after backward, and the calibration sweep
  std::vector<StraddleSample> straddle_samples;  // the rest: across backward's end
  std::vector<std::int64_t> steps;               // the steps used
  std::optional<std::int64_t> warm_up_step;      // left out
  double step_ns = 0;                            // median over steps of the slowest rank's step
  // Median over steps of the least allreduce_wait across ranks: what the
  // step paid for communication.
  std::optional<double> allreduce_wait_ns;
  // Median over steps of the latest backward end after the latest gradient.
  double backward_tail_ns = 0;
  std::vector<std::string> notes;  // what the reader should know about the input and model
};

// Throws parity::Error for ranks that do not belong together (a rank twice,
// different parameter counts or world sizes) or share no complete step.
TuneInput combine_ranks(std::vector<RankTrace> ranks);

// Loads and combines; `progress` receives the fraction of files read.
TuneInput load_tune_input(const std::vector<std::filesystem::path>& paths,
                          const std::function<void(double)>& progress = {});

// Adds the AllReduce costs of other runs of the same model (recorded with other
// splits, e.g. the ones an earlier tuning proposed) to input's cost samples;
// ready times and measured times stay the input's own. The files are grouped
// into runs in order: a rank number seen again starts the next run. Throws
// parity::Error for a run of another model (a different parameter count).
void add_cost_runs(TuneInput& input, const std::vector<std::filesystem::path>& paths,
                   const std::function<void(double)>& progress = {});

}  // namespace parity::analyzer
