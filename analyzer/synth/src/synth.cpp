#include "parity/analyzer/synth/synth.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "parity/core/error.hpp"
#include "parity/profiler/clock.hpp"
#include "synth_random.hpp"
#include "synth_rank.hpp"
#include "synth_setup.hpp"

namespace parity::analyzer {
namespace {

using synth::RankTimeline;
using synth::SynthRandom;
using synth::SynthSetup;

constexpr double kOverflowChance = 0.01;  // steps whose scaled gradients overflow

void check_ranks(int ranks) {
  if (ranks < 1)
    throw Error("--ranks must be at least 1, got " + std::to_string(ranks), "synth",
                "ask for one trace database per data-parallel rank, e.g. --ranks 4");
}

void check_options(const SynthOptions& options) {
  check_ranks(options.ranks);
  if (options.events < 1)
    throw Error("--events must be at least 1, got " + std::to_string(options.events), "synth",
                "ask for the number of trace rows to write per rank, e.g. --events 1000000");
  if (options.straggler_rank < -1 || options.straggler_rank >= options.ranks)
    throw Error("--straggler-rank " + std::to_string(options.straggler_rank) +
                    " is not one of the " + std::to_string(options.ranks) + " ranks",
                "synth", "pass a rank from 0 to " + std::to_string(options.ranks - 1));
}

// Every rank's gradient buckets are reduced together, one bucket after the
// other on the collective lane: a bucket's reduction starts on each rank when
// its gradients are ready there, and ends on all ranks at once, after the
// last rank joined plus the transfer. Returns when the last bucket is reduced.
std::int64_t reduce_gradients(std::int64_t step, const SynthSetup& setup,
                              const std::vector<std::unique_ptr<RankTimeline>>& ranks,
                              SynthRandom& random) {
  const double ring_factor = 2.0 * double(ranks.size() - 1) / double(ranks.size());
  std::int64_t lane_free = 0;
  std::vector<std::int64_t> starts(ranks.size());
  for (std::size_t bucket = 0; bucket < setup.buckets.size(); ++bucket) {
    std::int64_t last_joined = 0;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      starts[r] =
          std::max(ranks[r]->bucket_ready(bucket), lane_free) + random.uniform_int(10'000, 30'000);
      last_joined = std::max(last_joined, starts[r]);
    }
    const double transfer = 20'000.0 + double(setup.buckets[bucket].bytes) * ring_factor /
                                           setup.timing.allreduce_bytes_per_ns;
    const std::int64_t end =
        last_joined + static_cast<std::int64_t>(transfer * random.jitter(0.03));
    for (std::size_t r = 0; r < ranks.size(); ++r)
      ranks[r]->add_allreduce(step, bucket, starts[r], end);
    lane_free = end;
  }
  return lane_free;
}

}  // namespace

std::vector<std::filesystem::path> synth_trace_paths(const std::filesystem::path& path, int ranks) {
  check_ranks(ranks);
  std::vector<std::filesystem::path> paths;
  if (ranks == 1) {
    paths.push_back(path);
  } else {
    for (int rank = 0; rank < ranks; ++rank) {
      std::filesystem::path rank_path = path;
      rank_path.replace_filename(path.stem().string() + ".rank" + std::to_string(rank) +
                                 path.extension().string());
      paths.push_back(rank_path);
    }
  }
  const std::filesystem::path directory = path.parent_path().empty() ? "." : path.parent_path();
  std::error_code error;
  if (!std::filesystem::is_directory(directory, error))
    throw Error("the output directory does not exist", directory.string(),
                "create it first, or choose another output path");
  for (const std::filesystem::path& target : paths)
    if (std::filesystem::exists(target, error))
      throw Error("refusing to overwrite an existing file", target.string(),
                  "choose a new output path or delete the old trace first");
  return paths;
}

std::vector<std::filesystem::path> write_synth_trace(const SynthOptions& options,
                                                     const std::filesystem::path& path,
                                                     const std::function<void(double)>& progress) {
  check_options(options);
  const std::vector<std::filesystem::path> paths = synth_trace_paths(path, options.ranks);
  const SynthSetup setup(options);
  SynthRandom random(synth::derive_seed(options.seed, synth::kCoordinatorStream));
  // One Unix time for trace time 0 on every rank; each rank adds its skew.
  const std::int64_t base_unix_ns = profiler::unix_ns_now();
  std::vector<std::unique_ptr<RankTimeline>> ranks;
  for (int rank = 0; rank < options.ranks; ++rank)
    ranks.push_back(std::make_unique<RankTimeline>(
        setup, options, rank, paths[static_cast<std::size_t>(rank)], base_unix_ns));

  // The ranks run in lockstep, one step at a time, since each step's gradient
  // reduction waits for the slowest of them.
  for (std::int64_t step = 0;; ++step) {
    for (const auto& rank : ranks) rank->run_until_optimizer(step);
    std::optional<std::int64_t> reduced;
    if (ranks.size() > 1) reduced = reduce_gradients(step, setup, ranks, random);
    const bool overflow = setup.gpu && random.chance(kOverflowChance);
    for (const auto& rank : ranks) {
      rank->finish_step(step, reduced, overflow);
      rank->commit_if_due();
    }
    const std::int64_t rows = ranks.front()->rows();
    if (progress) progress(std::min(1.0, double(rows) / double(options.events)));
    // Stop at the whole number of steps nearest to the request.
    if (rows + rows / (2 * (step + 1)) >= options.events) break;
  }
  for (const auto& rank : ranks) rank->close();
  if (progress) progress(1.0);
  return paths;
}

}  // namespace parity::analyzer
