// Synthetic traces: writes trace databases that look like a recorded
// ResNet-50 data-parallel training run (host ranges, CUDA launches and
// kernels, a data queue, counters, gradient buckets and their AllReduce), of
// any size and deterministic for a seed. For benchmarks and tests of the
// analyzer and the viewer; `parity synth` is its command.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

namespace parity::analyzer {

struct SynthOptions {
  // Rows written per rank across the event tables (range, api_call, gpu_activity,
  // collective, queue_sample, counter, grad_ready, instant, step), to within one
  // step's rows: whole steps are written.
  std::int64_t events = 100'000;
  int ranks = 1;  // one database per rank
  std::uint64_t seed = 1;
  bool gpu = true;          // false: a CPU-only trace, as the oneDNN trainer writes
  int straggler_rank = -1;  // this rank's compute is 25% slower; -1 = none
};

// The databases a trace of `ranks` ranks is written to: `path` itself for one
// rank, `<stem>.rank<i><ext>` beside it for several (synth.db -> synth.rank0.db,
// synth.rank1.db, ...). Throws parity::Error if any of them exists or their
// directory does not.
std::vector<std::filesystem::path> synth_trace_paths(const std::filesystem::path& path, int ranks);

// Writes the trace and returns the paths written. `progress(done_fraction)` is
// called now and then (it may be empty). Throws parity::Error on bad options,
// an existing target or a failed write. Each database's meta holds, besides
// the recorder's keys, `synth.rows`: the event rows it holds.
std::vector<std::filesystem::path> write_synth_trace(
    const SynthOptions& options, const std::filesystem::path& path,
    const std::function<void(double)>& progress = {});

}  // namespace parity::analyzer
