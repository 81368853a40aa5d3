// Loader: turns a Dataset and a TransformPipeline into batches of normalized
// float32 NCHW images, decoded by worker threads into a bounded prefetch
// queue, in batch order.
//
// Determinism: an epoch's sample order is a function of (seed, epoch) and
// each sample's augmentation draws from a stream keyed by (seed, epoch,
// dataset index), so batch k of epoch e is the same bits whatever the worker
// count or timing, and start_epoch(e, k) resumes exactly where batch k of a
// full epoch would be.
//
// Sharding (data parallel): the epoch's permutation is dealt round-robin to
// num_shards shards (shard s takes positions s, s + S, s + 2S, ...), like
// torch's DistributedSampler but without padding: the N % S samples at the
// end of each epoch's permutation are left out, so shards are disjoint, cover
// all but fewer than S samples, and have equal batch counts.
//
// Queue: at most `prefetch` batches are claimed by workers and not yet taken
// by the consumer, so no more than `prefetch` batches are ever ready and at
// most min(num_workers, prefetch) are decoded at once. With num_workers = 0
// next() decodes on the caller's thread.
//
// Unreadable samples: load() failing with parity::Error propagates to next()
// at that batch (in order: the batches before it arrive first). With
// skip_corrupt the sample is left out of its batch (the batch gets smaller;
// batch count and order are unchanged, so resuming and sharding still line
// up; a batch whose samples all fail has n = 0), counted, and logged as one
// warning per sample per loader. Other exceptions (transforms, std::) always
// reach next(). After an error next() throws it again until start_epoch().
//
// Profiling (optional Recorder, which must outlive the loader): for every
// batch the consumer takes, a consumer queue sample (ready batches left,
// capacity, nanoseconds next() waited); for every batch a worker adds, a
// producer sample (ready batches, capacity, nanoseconds the worker waited
// for a free slot); a "load_batch" range (arg: batch index) per batch on
// threads named "data worker N". With num_workers = 0 the consumer's wait is
// the time it spent decoding.
//
// Planted delay: delay_ms > 0 makes building every batch sleep that long
// first (on the worker, or with num_workers = 0 on the consumer), so a test
// or a demo can make a run input-bound on purpose.
//
// Threading: one consumer thread calls start_epoch() and next(). The
// destructor stops the workers within one sample's decode (or one planted
// delay) and joins them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "parity/trainer/data/dataset.hpp"
#include "parity/trainer/data/transforms.hpp"

namespace parity::profiler {
class Recorder;
}

namespace parity::trainer {

struct Batch {
  std::int64_t index = 0;  // position in the epoch, from 0
  std::int64_t n = 0, c = 0, h = 0, w = 0;
  std::vector<float> images;         // n x c x h x w float32, normalized
  std::vector<std::int32_t> labels;  // n
  std::int64_t skipped = 0;          // samples of this batch left out (skip_corrupt)
};

struct LoaderOptions {
  std::int64_t batch_size = 128;
  bool shuffle = true;
  bool drop_last = true;  // false: the epoch ends with a smaller batch
  // At most this many batches an epoch (0: one pass over the dataset): each
  // epoch then sees a fresh random subset, as MindSpore's sink_size.
  std::int64_t max_batches_per_epoch = 0;
  std::int64_t seed = 1;
  std::int64_t num_workers = 2;  // 0: decode on the consumer's thread
  std::int64_t prefetch = 4;     // queue capacity in batches, >= 1
  std::int64_t num_shards = 1;
  std::int64_t shard_id = 0;
  bool skip_corrupt = false;
  double delay_ms = 0;  // sleep per batch built (see above); >= 0
  profiler::Recorder* recorder = nullptr;
  std::string queue_name = "data_queue";  // the queue's track in the trace
};

class Loader {
 public:
  Loader(std::shared_ptr<const Dataset> dataset, TransformPipeline transforms,
         LoaderOptions options);
  ~Loader();
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  // Starts (or restarts) epoch `epoch` at batch `first_batch`, discarding
  // whatever was prefetched. 0 <= first_batch <= batches_per_epoch().
  void start_epoch(std::int64_t epoch, std::int64_t first_batch = 0);
  // The next batch in order; nullopt at the end of the epoch. Throws a
  // parity::Error before the first start_epoch().
  std::optional<Batch> next();

  std::int64_t batches_per_epoch() const;
  // Samples this shard sees per epoch (before skipping).
  std::int64_t samples_per_epoch() const;
  // Samples left out of the batches next() has returned so far (skip_corrupt).
  std::int64_t skipped() const;
  // Batches ready in the queue now.
  std::int64_t queue_depth() const;
  const Dataset& dataset() const;
  const TransformPipeline& transforms() const;
  const LoaderOptions& options() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace parity::trainer
