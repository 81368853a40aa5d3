// BucketSchedule: when each gradient bucket may be reduced during backward.
// A bucket is released once all its gradients are ready, and buckets go
// strictly from the last (the first gradients backward writes) to bucket 0,
// the order `parity tune-allreduce` models: a later-ready bucket waits for
// the ones behind it. Both reducers (MPI on a thread, NCCL on a stream)
// follow it. Not thread-safe: its owner locks around it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "parity/profiler/allreduce_split.hpp"
#include "parity/trainer/backend/backend.hpp"
#include "parity/trainer/nn/module.hpp"

namespace parity::trainer {

class BucketSchedule {
 public:
  // Throws parity::Error unless the buckets cover parameters 0..count-1 in order.
  BucketSchedule(std::vector<profiler::GradientBucket> buckets, std::size_t parameter_count);

  const std::vector<profiler::GradientBucket>& buckets() const { return buckets_; }
  std::uint32_t bucket_of(std::uint32_t parameter) const { return bucket_of_.at(parameter); }

  // Parameter `parameter`'s gradient is ready: the buckets this releases, in order.
  std::vector<std::uint32_t> gradient_ready(std::uint32_t parameter);
  // Releases every bucket not released yet (backward is over), in order.
  std::vector<std::uint32_t> release_rest();
  // Starts the next step: every bucket waits for all its gradients again.
  void reset();

 private:
  std::vector<std::uint32_t> release_ready();

  std::vector<profiler::GradientBucket> buckets_;
  std::vector<std::uint32_t> bucket_of_;  // parameter index -> bucket
  std::vector<std::uint32_t> pending_;    // per bucket: gradients not yet ready this step
  std::int64_t next_release_ = -1;        // the next bucket to release
};

// Each bucket's part of the contiguous gradient buffer that `gradients`
// (Backend::contiguous_gradients, in parameter order) lies in: one message
// per bucket, host or device memory as the backend keeps it.
std::vector<std::span<float>> bucket_messages(const std::vector<std::span<float>>& gradients,
                                              const std::vector<profiler::GradientBucket>& buckets);

// What the training loop asks of a data-parallel reducer, whichever library
// it reduces with.
class StepReducer : public GradientHook {
 public:
  // Main thread, at the end of backward's phase (after the last layer's backward was issued).
  virtual void end_backward() {}
  // Main thread, after backward: reduces the buckets still waiting (a
  // gradient backward never wrote), waits for all, and readies the next step.
  virtual void finish_step() = 0;
  virtual const std::vector<profiler::GradientBucket>& buckets() const = 0;
};

}  // namespace parity::trainer
