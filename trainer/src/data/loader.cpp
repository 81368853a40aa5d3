#include "parity/trainer/data/loader.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "parity/core/error.hpp"
#include "parity/core/log.hpp"
#include "parity/profiler/recorder.hpp"
#include "parity/trainer/data/random.hpp"

namespace parity::trainer {
namespace {

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::uint32_t to_u32(std::int64_t value) { return static_cast<std::uint32_t>(value); }

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// One epoch of one shard: the samples in order, fixed when the epoch starts.
struct EpochPlan {
  std::int64_t epoch = 0;
  std::uint64_t generation = 0;  // which start_epoch() made it
  std::vector<std::int64_t> order;
  std::int64_t batch_count = 0;
};

// A finished batch, or the exception that stopped it.
struct Produced {
  Batch batch;
  std::exception_ptr error;
};

}  // namespace

struct Loader::State {
  std::shared_ptr<const Dataset> dataset;
  TransformPipeline transforms;
  LoaderOptions options;
  std::int64_t samples_per_epoch = 0;
  std::int64_t batches_per_epoch = 0;
  profiler::NameId queue_name = 0, load_batch_name = 0;

  // Guarded by mutex.
  mutable std::mutex mutex;
  std::condition_variable work_ready;   // workers wait for a batch they may claim
  std::condition_variable batch_ready;  // the consumer waits for the next batch
  std::shared_ptr<const EpochPlan> plan;
  std::uint64_t generation = 0;
  std::int64_t next_claim = 0;    // the next batch a worker will build
  std::int64_t next_deliver = 0;  // the next batch next() returns
  std::map<std::int64_t, Produced> ready;
  std::exception_ptr failure;  // what the last next() threw, until start_epoch()
  bool stopping = false;

  // Read by workers between samples, to drop stale work quickly.
  std::atomic<std::uint64_t> live_generation{0};
  std::atomic<bool> stop_requested{false};
  std::atomic<std::int64_t> skipped_total{0};

  std::mutex warned_mutex;
  std::unordered_set<std::int64_t> warned;  // samples already logged as skipped

  std::vector<std::thread> workers;

  std::shared_ptr<const EpochPlan> make_plan(std::int64_t epoch, std::uint64_t gen) const;
  bool can_claim() const {
    return plan && next_claim < plan->batch_count && next_claim < next_deliver + options.prefetch;
  }
  // Builds batch `index` of `plan`; nullopt when the epoch was replaced or
  // the loader is stopping before it was done.
  std::optional<Batch> build(const EpochPlan& plan, std::int64_t index);
  void warn_skipped(std::int64_t sample, const Error& error);
  void worker_main(std::int64_t worker);
  // Stops the workers (each within one sample) and joins them.
  void stop();
};

std::shared_ptr<const EpochPlan> Loader::State::make_plan(std::int64_t epoch,
                                                          std::uint64_t gen) const {
  auto made = std::make_shared<EpochPlan>();
  made->epoch = epoch;
  made->generation = gen;
  const std::int64_t count = dataset->size();
  std::vector<std::int64_t> permutation;
  if (options.shuffle) {
    Rng rng = Rng::stream(RngPurpose::kPermutation, static_cast<std::uint64_t>(options.seed),
                          static_cast<std::uint64_t>(epoch));
    permutation = random_permutation(count, rng);
  } else {
    permutation.resize(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) permutation[static_cast<std::size_t>(i)] = i;
  }
  made->order.reserve(static_cast<std::size_t>(samples_per_epoch));
  for (std::int64_t i = 0; i < samples_per_epoch; ++i)
    made->order.push_back(
        permutation[static_cast<std::size_t>(options.shard_id + i * options.num_shards)]);
  made->batch_count = batches_per_epoch;
  return made;
}

void Loader::State::warn_skipped(std::int64_t sample, const Error& error) {
  {
    std::lock_guard lock(warned_mutex);
    if (!warned.insert(sample).second) return;
  }
  log::warning("skip_corrupt: leaving out a sample that cannot be loaded: " +
               std::string(error.what_failed()) + " (" + dataset->describe(sample) + ")");
}

std::optional<Batch> Loader::State::build(const EpochPlan& epoch_plan, std::int64_t index) {
  std::optional<profiler::Scope> range;
  if (options.recorder)
    range.emplace(*options.recorder, load_batch_name, profiler::Category::kOp, index);
  if (options.delay_ms > 0)
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(options.delay_ms));
  const auto first = index * options.batch_size;
  const auto last = std::min<std::int64_t>(first + options.batch_size,
                                           static_cast<std::int64_t>(epoch_plan.order.size()));
  Batch batch;
  batch.index = index;
  batch.labels.reserve(static_cast<std::size_t>(last - first));
  std::int64_t image_size = 0;
  for (std::int64_t position = first; position < last; ++position) {
    if (stop_requested.load(std::memory_order_relaxed) ||
        live_generation.load(std::memory_order_relaxed) != epoch_plan.generation)
      return std::nullopt;
    const std::int64_t sample_index = epoch_plan.order[static_cast<std::size_t>(position)];
    Sample sample;
    try {
      sample = dataset->load(sample_index);
    } catch (const Error& error) {
      if (!options.skip_corrupt) throw;
      ++batch.skipped;
      warn_skipped(sample_index, error);
      continue;
    }
    Rng rng = Rng::stream(RngPurpose::kAugment, static_cast<std::uint64_t>(options.seed),
                          static_cast<std::uint64_t>(epoch_plan.epoch),
                          static_cast<std::uint64_t>(sample_index));
    FloatImage image;
    try {
      image = transforms.apply(sample, rng);
    } catch (const Error& error) {
      // Say which sample the transform failed on.
      throw Error(error.what_failed(), dataset->describe(sample_index), error.hint());
    }
    if (batch.labels.empty()) {
      batch.c = image.channels;
      batch.h = image.height;
      batch.w = image.width;
      image_size = batch.c * batch.h * batch.w;
      batch.images.reserve(static_cast<std::size_t>((last - first) * image_size));
    } else if (image.channels != batch.c || image.height != batch.h || image.width != batch.w) {
      throw Error("the transforms made a " + std::to_string(image.channels) + "x" +
                      std::to_string(image.height) + "x" + std::to_string(image.width) +
                      " image, the batch's first is " + std::to_string(batch.c) + "x" +
                      std::to_string(batch.h) + "x" + std::to_string(batch.w),
                  dataset->describe(sample_index),
                  "end the transforms with a crop to one size (" + transforms.describe() + ")");
    }
    batch.images.insert(batch.images.end(), image.data.begin(), image.data.end());
    batch.labels.push_back(sample.label);
  }
  batch.n = static_cast<std::int64_t>(batch.labels.size());
  return batch;
}

void Loader::State::worker_main(std::int64_t worker) {
  if (options.recorder) options.recorder->name_thread("data worker " + std::to_string(worker));
  std::unique_lock lock(mutex);
  while (true) {
    // A worker that finds the epoch's remaining batches all claimed up to the
    // queue's capacity is blocked on a full queue: that wait is reported.
    const bool full = plan && next_claim < plan->batch_count && !can_claim();
    const std::uint64_t waited_generation = generation;
    const std::int64_t wait_start = now_ns();
    work_ready.wait(lock, [&] { return stopping || can_claim(); });
    if (stopping) return;
    const std::int64_t waited = full && generation == waited_generation ? now_ns() - wait_start : 0;

    const std::shared_ptr<const EpochPlan> epoch_plan = plan;
    const std::int64_t index = next_claim++;
    lock.unlock();
    std::optional<Produced> produced;  // stays empty if the work went stale
    try {
      if (auto batch = build(*epoch_plan, index)) produced = Produced{std::move(*batch), nullptr};
    } catch (...) {
      produced = Produced{{}, std::current_exception()};
    }
    lock.lock();
    if (stopping) return;
    if (!produced || generation != epoch_plan->generation) continue;
    ready.emplace(index, std::move(*produced));
    const auto depth = static_cast<std::int64_t>(ready.size());
    batch_ready.notify_one();
    if (options.recorder)
      options.recorder->queue_sample(queue_name, profiler::QueueRole::kProducer, to_u32(depth),
                                     to_u32(options.prefetch), waited);
  }
}

Loader::Loader(std::shared_ptr<const Dataset> dataset, TransformPipeline transforms,
               LoaderOptions options)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  if (!dataset) throw Error("Loader needs a dataset");
  if (options.batch_size <= 0)
    throw Error("batch_size must be positive, got " + std::to_string(options.batch_size));
  if (options.num_workers < 0)
    throw Error("num_workers must not be negative, got " + std::to_string(options.num_workers));
  if (options.max_batches_per_epoch < 0)
    throw Error("the batches of an epoch must not be negative, got " +
                std::to_string(options.max_batches_per_epoch));
  if (options.prefetch <= 0)
    throw Error("prefetch must be at least 1 batch, got " + std::to_string(options.prefetch));
  // Written so that NaN fails too; infinity would never return a batch.
  if (!(options.delay_ms >= 0 && std::isfinite(options.delay_ms)))
    throw Error("the loader's delay must be a non-negative number of milliseconds, got " +
                    number_text(options.delay_ms),
                "", "give 0 for no delay");
  if (options.num_shards <= 0 || options.shard_id < 0 || options.shard_id >= options.num_shards)
    throw Error("shard " + std::to_string(options.shard_id) + " of " +
                    std::to_string(options.num_shards) + " does not exist",
                "", "shard_id must lie in [0, num_shards)");
  s.dataset = std::move(dataset);
  s.transforms = std::move(transforms);
  s.options = std::move(options);
  s.samples_per_epoch = s.dataset->size() / s.options.num_shards;
  const auto batch = s.options.batch_size;
  s.batches_per_epoch =
      s.options.drop_last ? s.samples_per_epoch / batch : (s.samples_per_epoch + batch - 1) / batch;
  if (s.options.max_batches_per_epoch > 0 && s.options.max_batches_per_epoch < s.batches_per_epoch) {
    s.batches_per_epoch = s.options.max_batches_per_epoch;
    s.samples_per_epoch = s.batches_per_epoch * batch;
  }
  s.queue_name = profiler::intern(s.options.queue_name);
  s.load_batch_name = profiler::intern("load_batch");
  try {
    for (std::int64_t w = 0; w < s.options.num_workers; ++w)
      s.workers.emplace_back([&s, w] { s.worker_main(w); });
  } catch (...) {
    s.stop();  // no destructor runs for a constructor that throws
    throw;
  }
}

void Loader::State::stop() {
  {
    std::lock_guard lock(mutex);
    stopping = true;
    stop_requested.store(true);
  }
  work_ready.notify_all();
  batch_ready.notify_all();
  for (auto& worker : workers) worker.join();
  workers.clear();
}

Loader::~Loader() { state_->stop(); }

void Loader::start_epoch(std::int64_t epoch, std::int64_t first_batch) {
  State& s = *state_;
  if (epoch < 0) throw Error("epoch must not be negative, got " + std::to_string(epoch));
  if (first_batch < 0 || first_batch > s.batches_per_epoch)
    throw Error("first batch " + std::to_string(first_batch) + " is outside the epoch's " +
                    std::to_string(s.batches_per_epoch) + " batches",
                "", "resume from a checkpoint made with the same batch_size and shard count");
  std::uint64_t gen;
  {
    std::lock_guard lock(s.mutex);
    gen = s.generation + 1;
  }
  // The permutation is computed outside the lock; only this thread starts epochs.
  auto plan = s.make_plan(epoch, gen);
  std::map<std::int64_t, Produced> stale;
  {
    std::lock_guard lock(s.mutex);
    s.generation = gen;
    s.live_generation.store(gen);
    s.plan = std::move(plan);
    s.next_claim = s.next_deliver = first_batch;
    stale.swap(s.ready);  // freed outside the lock
    s.failure = nullptr;
  }
  s.work_ready.notify_all();
}

std::optional<Batch> Loader::next() {
  State& s = *state_;
  profiler::Recorder* recorder = s.options.recorder;
  if (s.options.num_workers == 0) {
    if (!s.plan) throw Error("Loader::next() called before start_epoch()");
    if (s.failure) std::rethrow_exception(s.failure);
    if (s.next_deliver >= s.plan->batch_count) return std::nullopt;
    const std::int64_t start = now_ns();
    std::optional<Batch> batch;
    try {
      batch = s.build(*s.plan, s.next_deliver);
    } catch (...) {
      s.failure = std::current_exception();
      throw;
    }
    ++s.next_deliver;
    s.skipped_total += batch->skipped;
    if (recorder)
      recorder->queue_sample(s.queue_name, profiler::QueueRole::kConsumer, 0,
                             to_u32(s.options.prefetch), now_ns() - start);
    return batch;
  }

  std::unique_lock lock(s.mutex);
  if (!s.plan) throw Error("Loader::next() called before start_epoch()");
  if (s.failure) std::rethrow_exception(s.failure);
  if (s.next_deliver >= s.plan->batch_count) return std::nullopt;
  const std::int64_t start = now_ns();
  s.batch_ready.wait(lock, [&] { return s.stopping || s.ready.count(s.next_deliver) > 0; });
  const std::int64_t waited = now_ns() - start;
  if (s.stopping) return std::nullopt;
  auto node = s.ready.extract(s.next_deliver);
  if (node.mapped().error) {
    s.failure = node.mapped().error;
    std::rethrow_exception(s.failure);
  }
  ++s.next_deliver;
  const auto depth = static_cast<std::int64_t>(s.ready.size());
  lock.unlock();
  s.work_ready.notify_all();  // a slot opened
  Batch batch = std::move(node.mapped().batch);
  s.skipped_total += batch.skipped;
  if (recorder)
    recorder->queue_sample(s.queue_name, profiler::QueueRole::kConsumer, to_u32(depth),
                           to_u32(s.options.prefetch), waited);
  return batch;
}

std::int64_t Loader::batches_per_epoch() const { return state_->batches_per_epoch; }
std::int64_t Loader::samples_per_epoch() const { return state_->samples_per_epoch; }
std::int64_t Loader::skipped() const { return state_->skipped_total.load(); }
std::int64_t Loader::queue_depth() const {
  std::lock_guard lock(state_->mutex);
  return static_cast<std::int64_t>(state_->ready.size());
}
const Dataset& Loader::dataset() const { return *state_->dataset; }
const TransformPipeline& Loader::transforms() const { return state_->transforms; }
const LoaderOptions& Loader::options() const { return state_->options; }

}  // namespace parity::trainer
