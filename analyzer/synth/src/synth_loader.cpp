#include "synth_loader.hpp"

#include <algorithm>
#include <utility>

namespace parity::analyzer::synth {

LoaderSimulation::LoaderSimulation(std::int64_t start, std::function<std::int64_t()> load_time,
                                   SynthRandom& random)
    : load_time_(std::move(load_time)), random_(random), first_start_(start) {}

// A blocked thread runs again some microseconds after it is woken.
std::int64_t LoaderSimulation::wake_up() { return random_.uniform_int(5'000, 20'000); }

// Runs the loader as far as the takes so far allow: batch i can only be put
// once the loop took batch i - kQueueCapacity, freeing a slot.
void LoaderSimulation::produce() {
  while (true) {
    if (!batches_.empty() && batches_.back().put < 0) {
      Batch& batch = batches_.back();
      std::int64_t slot_free = 0;
      if (batch.index >= kQueueCapacity) {
        const auto frees = static_cast<std::size_t>(batch.index - kQueueCapacity);
        if (frees >= gets_.size()) return;
        slot_free = gets_[frees] + wake_up();
      }
      batch.put = std::max(batch.load_end, slot_free);
      batch.put_wait = batch.put - batch.load_end;
      pending_producer_.push_back(batch.index);
    }
    const std::int64_t start =
        batches_.empty() ? first_start_ : batches_.back().put + random_.uniform_int(2'000, 10'000);
    const auto index = static_cast<std::int64_t>(batches_.size());
    batches_.push_back({index, start, start + load_time_()});
  }
}

std::int64_t LoaderSimulation::take(std::int64_t ask) {
  const std::size_t index = gets_.size();
  produce();  // batch `index` is put: it needed the take of index - kQueueCapacity
  const Batch& batch = batches_[index];
  std::int64_t got = 0, wait = 0;
  if (batch.put <= ask) {
    got = ask + random_.uniform_int(10'000, 40'000);
  } else {  // the queue is empty: wait for the put
    got = batch.put + wake_up();
    wait = got - ask;
  }
  gets_.push_back(got);
  produce();  // puts are now known past `got`: batch index + kQueueCapacity's came after it
  std::uint32_t depth = 0;
  for (std::size_t next = index + 1; next < batches_.size(); ++next) {
    if (batches_[next].put < 0 || batches_[next].put > got) break;
    ++depth;
  }
  samples_.push_back({got, depth, profiler::QueueRole::kConsumer, wait});
  return got;
}

std::vector<LoaderSimulation::Batch> LoaderSimulation::started_batches(std::int64_t before) {
  std::vector<Batch> started;
  for (; next_range_ < batches_.size() && batches_[next_range_].load_start < before; ++next_range_)
    started.push_back(batches_[next_range_]);
  return started;
}

std::vector<LoaderSimulation::Sample> LoaderSimulation::finished_samples(bool all,
                                                                         std::int64_t end) {
  while (!pending_producer_.empty()) {
    const Batch& batch = batches_[static_cast<std::size_t>(pending_producer_.front())];
    // Takes come in time order: once one is later than the put, the depth is final.
    if (!all && (gets_.empty() || gets_.back() <= batch.put)) break;
    pending_producer_.pop_front();
    if (all && batch.put > end) continue;
    const auto taken = std::upper_bound(gets_.begin(), gets_.end(), batch.put) - gets_.begin();
    const auto depth = static_cast<std::uint32_t>(batch.index + 1 - taken);
    samples_.push_back({batch.put, depth, profiler::QueueRole::kProducer, batch.put_wait});
  }
  return std::exchange(samples_, {});
}

}  // namespace parity::analyzer::synth
