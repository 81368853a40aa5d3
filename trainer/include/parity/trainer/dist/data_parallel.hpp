// The pieces of data-parallel training around the reducer: the same starting
// weights on every rank, the buckets a config asks for, and the per-rank
// trace path. BN running statistics stay per rank, as the seeds' do: only
// gradients are averaged.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "parity/profiler/allreduce_split.hpp"
#include "parity/trainer/backend/backend.hpp"
#include "parity/trainer/dist/communicator.hpp"
#include "parity/trainer/nn/module.hpp"

namespace parity::trainer {

// Rank 0's parameters and buffers (BN running statistics), copied to every rank.
void broadcast_state(Communicator& communicator, Backend& backend, const ModelState& state);

// The buckets of `split` (an allreduce_split value) for these parameters.
std::vector<profiler::GradientBucket> gradient_buckets(const std::string& split,
                                                       const std::vector<Parameter>& parameters);

// The bytes of all the parameters' float32 gradients.
std::uint64_t gradient_bytes(const std::vector<Parameter>& parameters);

// RUN.db -> RUN.rank3.db: one trace database per rank, as the analyzer takes them.
std::filesystem::path rank_trace_path(const std::filesystem::path& path, int rank);

}  // namespace parity::trainer
