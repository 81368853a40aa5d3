// The data loader of a synthetic trace: one thread loads batches and puts them
// into a queue of kQueueCapacity batches, blocking while it is full; the
// training loop takes one at each step's data_wait, blocking while it is
// empty. Simulated in trace time, it gives the loader's load_batch ranges and
// the queue samples a recorded loader writes (docs/trace-schema.md).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "parity/profiler/trace_rows.hpp"
#include "synth_random.hpp"

namespace parity::analyzer::synth {

inline constexpr std::uint32_t kQueueCapacity = 4;

class LoaderSimulation {
 public:
  struct Batch {
    std::int64_t index = 0;
    std::int64_t load_start = 0, load_end = 0;
    std::int64_t put = -1;  // -1 until known: it waits for a free slot
    std::int64_t put_wait = 0;
  };
  struct Sample {
    std::int64_t ts = 0;
    std::uint32_t depth = 0;
    profiler::QueueRole role = profiler::QueueRole::kConsumer;
    std::int64_t wait_ns = 0;
  };

  // The loader starts loading at `start`; each batch takes `load_time()` ns.
  LoaderSimulation(std::int64_t start, std::function<std::int64_t()> load_time,
                   SynthRandom& random);

  // The training loop asks for the next batch at `ask`: returns when it has
  // it, and records the consumer's sample.
  std::int64_t take(std::int64_t ask);

  // Batches whose loading started before `before`, not handed out yet, in start order.
  std::vector<Batch> started_batches(std::int64_t before);
  // Samples whose depth is final, in no particular order; `all` at the end of
  // the trace hands out every sample taken by `end`.
  std::vector<Sample> finished_samples(bool all = false, std::int64_t end = 0);

 private:
  void produce();
  std::int64_t wake_up();

  std::function<std::int64_t()> load_time_;
  SynthRandom& random_;
  std::int64_t first_start_;
  std::vector<Batch> batches_;                 // every batch started, by index
  std::size_t next_range_ = 0;                 // first batch not handed out as a range
  std::vector<std::int64_t> gets_;             // when the loop took each batch, by index
  std::deque<std::int64_t> pending_producer_;  // batches whose put sample waits for takes
  std::vector<Sample> samples_;
};

}  // namespace parity::analyzer::synth
