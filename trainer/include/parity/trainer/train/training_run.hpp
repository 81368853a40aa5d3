// A training run and an evaluation, as `parity-train train` and
// `parity-train eval` perform them: the loop over epochs and steps (data
// wait, forward, loss, backward, optimizer), the seeds' log lines, the
// progress line, checkpoints, resuming, and tracing through the profiler.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>

#include "parity/trainer/config/train_config.hpp"
#include "parity/trainer/debug/debug_options.hpp"
#include "parity/trainer/debug/step_selection.hpp"
#include "parity/trainer/dist/communicator.hpp"

namespace parity::trainer {

struct TrainOptions {
  std::optional<std::filesystem::path> trace;   // write a trace database here
  std::int64_t max_steps = 0;                   // stop after this many steps of this run (0: all)
  double time_limit_minutes = 0;                // stop after the step that passes this (0: none)
  std::optional<std::filesystem::path> resume;  // continue from this checkpoint
  std::int64_t log_every = 0;                   // loss line every N steps (0: each epoch's end)
  bool eval_each_epoch = false;                 // top-1/top-5 on the test split after each epoch
  double data_delay_ms = 0;                     // loader sleep per batch (ms): planted slow data
  std::string command_line;                     // recorded in the trace
  DebugOptions debug;  // dumps, anomaly checks, fixed inputs, planted faults
  // The capture window (--trace-steps): only these steps are recorded, and
  // between windows the recorder's hot path returns at once. Unset: all.
  std::optional<StepSelection> trace_steps;
  // Data parallel: this rank's group (null: one process). Each rank trains on
  // its shard, gradients are averaged in buckets (config allreduce_split),
  // the trace goes to RUN.rankR.db, and only rank 0 logs, evaluates and
  // writes checkpoints.
  Communicator* communicator = nullptr;
};

struct TrainSummary {
  std::int64_t steps = 0;        // optimizer steps this run took
  std::int64_t global_step = 0;  // steps since the start of training
  double last_loss = 0.0;
  double images_per_second = 0.0;    // over this run's steps, data waits included
  std::int64_t skipped_batches = 0;  // short batches (unreadable images left out)
  // The loss scaler's totals since the start of training (resumed runs included).
  std::int64_t overflow_steps = 0;  // steps whose gradients held Inf or NaN
  std::int64_t overflow_skips = 0;  // of those, the steps whose update was not applied
  double loss_scale = 1.0;          // the scale the next step would use
  std::optional<std::filesystem::path> last_checkpoint;
  std::int64_t dumped_tensors = 0;  // records written by --dump
  std::uint64_t dumped_bytes = 0;   // their .npy data
  std::int64_t probed_steps = 0;    // records written by --probe-grads
};

struct EvalResult {
  std::int64_t images = 0;
  double top1 = 0.0, top5 = 0.0;  // fractions
  double loss = 0.0;              // mean cross-entropy, no smoothing
};

// Log lines go to `log` (the seeds' "epoch: 1 step: 469, loss is 0.83");
// the progress line goes to stderr when it is a terminal. With
// --detect-anomaly, the first NaN/Inf throws AnomalyDetected.
TrainSummary train(const TrainConfig& config, const TrainOptions& options, std::ostream& log);

// `checkpoint` is one of the trainer's checkpoints (its config must be this
// one's network), or weights in any format Parity reads, lined up with the
// network's names by `map` (foreign_weights.hpp).
EvalResult evaluate_checkpoint(const TrainConfig& config, const std::filesystem::path& checkpoint,
                               std::ostream& log, const std::string& map = "auto");

}  // namespace parity::trainer
