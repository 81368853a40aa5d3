// One rank of a synthetic trace: its timeline (main thread, data loader,
// GPU streams, counters, collective lane) simulated step by step and written
// to its database as it goes. Times in the interface are global (the same
// clock for every rank); each rank's rows are on its own trace clock, a few
// microseconds off, as clock_origin_unix_ns records.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "parity/profiler/trace_writer.hpp"
#include "synth_loader.hpp"
#include "synth_random.hpp"
#include "synth_setup.hpp"

namespace parity::analyzer::synth {

class RankTimeline {
 public:
  RankTimeline(const SynthSetup& setup, const SynthOptions& options, int rank,
               const std::filesystem::path& path, std::int64_t base_unix_ns);

  // The step up to the end of its backward phase: data wait, forward, backward.
  void run_until_optimizer(std::int64_t step);
  // When the gradients of a bucket were all ready (runs with several ranks only).
  std::int64_t bucket_ready(std::size_t bucket) const { return bucket_ready_[bucket]; }
  void add_allreduce(std::int64_t step, std::size_t bucket, std::int64_t start, std::int64_t end);
  // The rest of the step: waits until the gradients' reduction ends at
  // `reduced` (none for one rank), then the optimizer, counters and the step's
  // end. `overflow`: the loss scaler found an inf this step (GPU only).
  void finish_step(std::int64_t step, std::optional<std::int64_t> reduced, bool overflow);

  std::int64_t rows() const { return rows_; }  // event rows written so far
  void commit_if_due();
  // Writes what is left, marks the trace complete and finalizes the file.
  void close();

 private:
  struct PendingRange {
    std::int64_t start = 0, end = 0;
    profiler::NameId name = 0;
    profiler::Category category = profiler::Category::kUser;
    std::uint32_t depth = 0;
    int parent = -1;  // index in step_ranges_
    std::optional<std::int64_t> arg;
  };

  void write_header(const SynthOptions& options, std::int64_t base_unix_ns);
  void add_tracks();
  void pause(std::int64_t lo, std::int64_t hi) { now_ += random_.uniform_int(lo, hi); }
  void open(profiler::NameId name, profiler::Category category,
            std::optional<std::int64_t> arg = std::nullopt);
  void close_range();
  void run_layer(std::size_t layer, bool backward, std::int64_t step);
  void run_op(profiler::NameId name, double cost_ns, const KernelPlan* kernels);
  void launch(const KernelLaunch& kernel, std::int64_t duration);
  void copy_input();
  void synchronize();
  void grads_ready(std::size_t layer, std::int64_t step);
  void optimizer(bool overflow, std::int64_t step);
  void add_counters(std::int64_t step);
  void write_step_ranges();
  void write_loader_ranges(std::int64_t before);
  void write_loader_range(const LoaderSimulation::Batch& batch);
  void write_queue_samples(bool all);
  std::int64_t local(std::int64_t global) const { return global - skew_ns_; }

  const SynthSetup& setup_;
  profiler::TraceWriter writer_;
  SynthRandom random_;
  std::unique_ptr<LoaderSimulation> loader_;
  std::int64_t skew_ns_ = 0;
  int rank_ = 0;
  std::int64_t pid_ = 0;
  double straggler_ = 1;

  // Track ids.
  profiler::TrackId main_ = 0, loader_thread_ = 0, queue_ = 0, loss_ = 0, lr_ = 0, loss_scale_ = 0,
                    memory_used_ = 0, memory_capacity_ = 0, compute_stream_ = 0, copy_stream_ = 0,
                    lane_ = 0;

  // The simulation's state, in global time.
  std::int64_t now_ = 0;  // the main thread's clock
  std::int64_t step_start_ = 0;
  double step_factor_ = 1;     // this step's compute time over a normal step's
  std::int64_t gpu_free_ = 0;  // the compute stream runs kernels one after another
  std::int64_t copy_free_ = 0;
  std::int64_t input_ready_ = 0;  // the first forward kernel waits for the input's copy
  std::vector<std::int64_t> bucket_ready_;
  double loss_scale_value_ = 65536;
  std::int64_t steps_since_overflow_ = 0;

  // Ranges of the current step, written when it ends (ids follow begin order
  // across threads, so the loader's ranges are merged in).
  std::vector<PendingRange> step_ranges_;
  std::vector<int> open_ranges_;
  std::int64_t next_range_id_ = 1, next_activity_id_ = 1, next_correlation_ = 1;

  std::int64_t rows_ = 0, rows_at_commit_ = 0;
};

}  // namespace parity::analyzer::synth
