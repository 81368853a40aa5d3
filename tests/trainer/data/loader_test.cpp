#include "parity/trainer/data/loader.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <stdexcept>
#include <thread>

#include "log_capture.hpp"
#include "parity/core/error.hpp"
#include "parity/profiler/recorder.hpp"
#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "parity/trainer/data/synthetic_dataset.hpp"
#include "temp_dir.hpp"

using namespace parity::trainer;
using Clock = std::chrono::steady_clock;

namespace {

// Sample i is a 3 x 4 image of 2 channels whose pixels encode i, labelled i
// (so labels identify samples). Counts loads; can be slow; fails on request.
class TestDataset : public Dataset {
 public:
  struct Options {
    std::int64_t count = 60;
    std::set<std::int64_t> corrupt;      // load() throws parity::Error
    std::set<std::int64_t> broken;       // load() throws std::runtime_error
    std::chrono::microseconds delay{0};  // per load
  };
  explicit TestDataset(Options options) : options_(std::move(options)) {}

  std::int64_t size() const override { return options_.count; }
  std::int64_t class_count() const override { return options_.count; }
  Sample load(std::int64_t index) const override {
    loads_.fetch_add(1);
    if (options_.delay.count() > 0) std::this_thread::sleep_for(options_.delay);
    if (options_.corrupt.count(index)) throw parity::Error("unreadable sample", describe(index));
    if (options_.broken.count(index)) throw std::runtime_error("disk on fire");
    Sample sample;
    sample.height = 3;
    sample.width = 4;
    sample.channels = 2;
    sample.label = static_cast<std::int32_t>(index);
    for (int k = 0; k < 24; ++k)
      sample.pixels.push_back(static_cast<std::uint8_t>((index * 7 + k) % 256));
    return sample;
  }
  std::string describe(std::int64_t index) const override {
    return "test sample " + std::to_string(index);
  }
  std::int64_t loads() const { return loads_.load(); }

 private:
  Options options_;
  mutable std::atomic<std::int64_t> loads_{0};
};

std::shared_ptr<TestDataset> test_dataset(std::int64_t count = 60,
                                          std::set<std::int64_t> corrupt = {},
                                          std::set<std::int64_t> broken = {},
                                          std::chrono::microseconds delay = {}) {
  TestDataset::Options options;
  options.count = count;
  options.corrupt = std::move(corrupt);
  options.broken = std::move(broken);
  options.delay = delay;
  return std::make_shared<TestDataset>(std::move(options));
}

LoaderOptions with(void (*change)(LoaderOptions&)) {
  LoaderOptions options;
  change(options);
  return options;
}

// Random transforms on random images: every source of nondeterminism shows.
std::shared_ptr<const Dataset> synthetic(std::int64_t count) {
  SyntheticOptions options;
  options.count = count;
  options.height = 20;
  options.width = 24;
  options.class_count = 5;
  options.seed = 3;
  return std::make_shared<const SyntheticDataset>(options);
}

TransformPipeline augmenting() {
  TransformPipeline pipeline;
  pipeline.add<RandomResizedCrop>(16).add<RandomHorizontalFlip>(0.5).add<RandomCrop>(16, 2);
  pipeline.add<Normalize>(std::vector<float>{0.5f}, std::vector<float>{0.25f});
  return pipeline;
}

std::vector<Batch> take_all(Loader& loader) {
  std::vector<Batch> batches;
  while (auto batch = loader.next()) batches.push_back(std::move(*batch));
  return batches;
}

std::vector<Batch> epoch_of(Loader& loader, std::int64_t epoch, std::int64_t first_batch = 0) {
  loader.start_epoch(epoch, first_batch);
  return take_all(loader);
}

std::vector<std::int32_t> labels_of(const std::vector<Batch>& batches) {
  std::vector<std::int32_t> labels;
  for (const auto& batch : batches)
    labels.insert(labels.end(), batch.labels.begin(), batch.labels.end());
  return labels;
}

void check_same(const std::vector<Batch>& a, const std::vector<Batch>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("batch " << i);
    CHECK(a[i].index == b[i].index);
    CHECK(a[i].n == b[i].n);
    CHECK(a[i].c == b[i].c);
    CHECK(a[i].h == b[i].h);
    CHECK(a[i].w == b[i].w);
    CHECK(a[i].labels == b[i].labels);
    // Bit-identical, not merely close.
    REQUIRE(a[i].images.size() == b[i].images.size());
    CHECK(std::memcmp(a[i].images.data(), b[i].images.data(), a[i].images.size() * sizeof(float)) ==
          0);
  }
}

int thread_count() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  return -1;
}

template <typename Predicate>
bool wait_until(Predicate predicate, std::chrono::milliseconds limit = std::chrono::seconds(5)) {
  const auto end = Clock::now() + limit;
  while (Clock::now() < end) {
    if (predicate()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return predicate();
}

}  // namespace

TEST_CASE("batches pack the transformed samples as NCHW with their labels", "[unit]") {
  auto dataset = test_dataset(10);
  LoaderOptions options;
  options.batch_size = 4;
  options.shuffle = false;
  options.drop_last = false;
  options.num_workers = 1;
  Loader loader(dataset, TransformPipeline(), options);
  CHECK(loader.batches_per_epoch() == 3);
  const auto batches = epoch_of(loader, 0);
  REQUIRE(batches.size() == 3);
  CHECK(batches[2].n == 2);
  CHECK(labels_of(batches) == std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  for (const auto& batch : batches) {
    CHECK(batch.c == 2);
    CHECK(batch.h == 3);
    CHECK(batch.w == 4);
    REQUIRE(batch.images.size() == static_cast<std::size_t>(batch.n * 24));
    for (std::int64_t s = 0; s < batch.n; ++s) {
      const Sample sample = dataset->load(batch.labels[static_cast<std::size_t>(s)]);
      for (std::int64_t c = 0; c < 2; ++c)
        for (std::int64_t p = 0; p < 12; ++p)
          REQUIRE(batch.images[static_cast<std::size_t>(s * 24 + c * 12 + p)] ==
                  static_cast<float>(sample.pixels[static_cast<std::size_t>(p * 2 + c)]) / 255.0f);
    }
  }
  options.drop_last = true;
  CHECK(Loader(dataset, TransformPipeline(), options).batches_per_epoch() == 2);
}

TEST_CASE("the batch sequence is bit-identical with 0, 1 and 4 workers", "[unit]") {
  const auto dataset = synthetic(203);
  LoaderOptions options;
  options.batch_size = 16;
  options.drop_last = false;
  options.prefetch = 3;
  options.seed = 17;
  std::vector<std::vector<Batch>> runs;  // epochs 0 and 1 per worker count
  for (const std::int64_t workers : {0, 1, 4}) {
    options.num_workers = workers;
    Loader loader(dataset, augmenting(), options);
    runs.push_back(epoch_of(loader, 0));
    runs.push_back(epoch_of(loader, 1));
    // An epoch run again, after another, is the same again.
    check_same(epoch_of(loader, 0), runs[runs.size() - 2]);
  }
  for (std::size_t run = 2; run < runs.size(); ++run) check_same(runs[run], runs[run % 2]);

  const auto& epoch0 = runs[0];
  REQUIRE(epoch0.size() == 13);
  CHECK(epoch0.back().n == 203 % 16);
  for (std::size_t i = 0; i < epoch0.size(); ++i)
    CHECK(epoch0[i].index == static_cast<std::int64_t>(i));
  // Every sample once per epoch, in an order and with augmentations that
  // change with the epoch.
  const auto epoch0_labels = labels_of(epoch0);
  std::multiset<std::int32_t> expected, seen(epoch0_labels.begin(), epoch0_labels.end());
  for (std::int64_t i = 0; i < 203; ++i) expected.insert(dataset->load(i).label);
  CHECK(seen == expected);
  CHECK(epoch0[0].images != runs[1][0].images);
  // Another seed, another sequence.
  options.seed = 18;
  Loader other(dataset, augmenting(), options);
  CHECK(epoch_of(other, 0)[0].images != epoch0[0].images);
}

TEST_CASE("start_epoch(e, k) resumes exactly at batch k", "[unit]") {
  const auto dataset = synthetic(150);
  LoaderOptions options;
  options.batch_size = 10;
  options.num_workers = 2;
  options.prefetch = 2;
  Loader loader(dataset, augmenting(), options);
  const auto full = epoch_of(loader, 4);
  REQUIRE(full.size() == 15);
  for (const std::int64_t k : {1, 6, 14}) {
    INFO("first batch " << k);
    check_same(epoch_of(loader, 4, k), {full.begin() + k, full.end()});
  }
  CHECK(epoch_of(loader, 4, 15).empty());
  CHECK_THROWS_AS(loader.start_epoch(4, 16), parity::Error);
  // Restarting mid-epoch drops what was prefetched for the old position.
  loader.start_epoch(4);
  loader.next();
  loader.next();
  check_same(epoch_of(loader, 4, 9), {full.begin() + 9, full.end()});
}

TEST_CASE("shards are disjoint, cover the epoch and have equal batch counts", "[unit]") {
  const std::int64_t count = GENERATE(60, 61, 62);
  INFO(count << " samples");
  auto dataset = test_dataset(count);
  LoaderOptions options;
  options.batch_size = 4;
  options.drop_last = false;
  options.num_workers = 2;
  options.seed = 5;
  Loader whole(dataset, TransformPipeline(), options);
  const auto order = labels_of(epoch_of(whole, 2));  // the epoch's permutation
  std::set<std::int32_t> covered;
  options.num_shards = 3;
  for (std::int64_t shard = 0; shard < 3; ++shard) {
    options.shard_id = shard;
    Loader loader(dataset, TransformPipeline(), options);
    CHECK(loader.samples_per_epoch() == 20);
    CHECK(loader.batches_per_epoch() == 5);
    const auto batches = epoch_of(loader, 2);
    CHECK(batches.size() == 5);
    const auto labels = labels_of(batches);
    // Shard s takes positions s, s + 3, s + 6, ... of the permutation.
    for (std::size_t i = 0; i < labels.size(); ++i)
      REQUIRE(labels[i] == order[static_cast<std::size_t>(shard) + 3 * i]);
    for (const auto label : labels) CHECK(covered.insert(label).second);  // disjoint
  }
  CHECK(covered.size() == 60);  // all but count % 3
  CHECK(static_cast<std::int64_t>(covered.size()) == count - count % 3);
  CHECK_THROWS_AS(Loader(dataset, TransformPipeline(),
                         with([](LoaderOptions& o) { o.num_shards = 3, o.shard_id = 3; })),
                  parity::Error);
}

TEST_CASE("max_batches_per_epoch draws a fresh random subset each epoch", "[unit]") {
  auto dataset = test_dataset(60);
  LoaderOptions options;
  options.batch_size = 4;
  options.num_workers = 2;
  options.seed = 5;
  Loader whole(dataset, TransformPipeline(), options);
  options.max_batches_per_epoch = 5;
  Loader subset(dataset, TransformPipeline(), options);
  CHECK(subset.batches_per_epoch() == 5);
  CHECK(subset.samples_per_epoch() == 20);
  std::set<std::vector<std::int32_t>> epochs;
  for (std::int64_t epoch = 0; epoch < 3; ++epoch) {
    INFO("epoch " << epoch);
    const auto labels = labels_of(epoch_of(subset, epoch));
    REQUIRE(labels.size() == 20);
    // The first 20 samples of the whole epoch's permutation, none twice.
    const auto order = labels_of(epoch_of(whole, epoch));
    CHECK(labels == std::vector<std::int32_t>(order.begin(), order.begin() + 20));
    CHECK(std::set<std::int32_t>(labels.begin(), labels.end()).size() == 20);
    epochs.insert(labels);
  }
  CHECK(epochs.size() == 3);  // each epoch another subset
  // More batches than the dataset holds: one pass, as without the limit.
  options.max_batches_per_epoch = 100;
  CHECK(Loader(dataset, TransformPipeline(), options).batches_per_epoch() == 15);
  CHECK_THROWS_AS(Loader(dataset, TransformPipeline(),
                         with([](LoaderOptions& o) { o.max_batches_per_epoch = -1; })),
                  parity::Error);
}

TEST_CASE("the queue never holds more than prefetch batches", "[unit]") {
  auto dataset = test_dataset(400);
  LoaderOptions options;
  options.batch_size = 4;
  options.prefetch = 3;
  options.num_workers = 4;  // more workers than slots: the extra one waits
  Loader loader(dataset, TransformPipeline(), options);
  CHECK(loader.queue_depth() == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(dataset->loads() == 0);  // nothing before an epoch starts
  loader.start_epoch(0);
  REQUIRE(wait_until([&] { return loader.queue_depth() == 3; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(loader.queue_depth() == 3);
  CHECK(dataset->loads() == 3 * 4);  // not one sample decoded past the queue's capacity
  REQUIRE(loader.next());
  REQUIRE(wait_until([&] { return loader.queue_depth() == 3; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(dataset->loads() == 4 * 4);
  std::int64_t taken = 1;
  while (loader.next()) {
    ++taken;
    REQUIRE(loader.queue_depth() <= 3);
  }
  CHECK(taken == 100);
}

TEST_CASE("a failure in a worker reaches the consumer at its batch", "[unit]") {
  const std::int64_t workers = GENERATE(0, 3);
  INFO(workers << " workers");
  LoaderOptions options;
  options.batch_size = 4;
  options.shuffle = false;
  options.num_workers = workers;

  SECTION("a sample that cannot be loaded is a parity::Error naming it") {
    Loader loader(test_dataset(40, {9}), TransformPipeline(), options);
    loader.start_epoch(0);
    CHECK(loader.next()->labels == std::vector<std::int32_t>{0, 1, 2, 3});
    CHECK(loader.next()->labels == std::vector<std::int32_t>{4, 5, 6, 7});
    try {
      loader.next();
      FAIL("the damaged sample's batch was delivered");
    } catch (const parity::Error& error) {
      CHECK(error.where() == "test sample 9");
    }
    CHECK_THROWS_AS(loader.next(), parity::Error);
    loader.start_epoch(0, 3);
    CHECK(loader.next()->labels == std::vector<std::int32_t>{12, 13, 14, 15});
  }
  SECTION("other exceptions pass through, even with skip_corrupt") {
    options.skip_corrupt = true;
    Loader loader(test_dataset(40, {}, {5}), TransformPipeline(), options);
    loader.start_epoch(0);
    CHECK(loader.next());
    CHECK_THROWS_WITH(loader.next(), "disk on fire");
  }
  SECTION("a transform failure names the sample") {
    TransformPipeline too_big;
    too_big.add<RandomCrop>(10);
    Loader loader(test_dataset(8), too_big, options);
    loader.start_epoch(0);
    try {
      loader.next();
      FAIL("a 3x4 image was cropped to 10x10");
    } catch (const parity::Error& error) {
      CHECK(error.where() == "test sample 0");
    }
  }
}

TEST_CASE("skip_corrupt leaves failing samples out, counts them and warns once each", "[unit]") {
  ScopedLogCapture log;
  LoaderOptions options;
  options.batch_size = 4;
  options.shuffle = false;
  options.skip_corrupt = true;
  options.num_workers = 2;
  Loader loader(test_dataset(12, {2, 9}), TransformPipeline(), options);
  for (int epoch = 0; epoch < 3; ++epoch) {
    const auto batches = epoch_of(loader, epoch);
    REQUIRE(batches.size() == 3);
    CHECK(batches[0].labels == std::vector<std::int32_t>{0, 1, 3});
    CHECK(batches[0].skipped == 1);
    CHECK(batches[2].labels == std::vector<std::int32_t>{8, 10, 11});
    CHECK(batches[1].skipped == 0);
  }
  CHECK(loader.skipped() == 6);
  const auto messages = log.messages();
  REQUIRE(messages.size() == 2);
  CHECK_THAT(messages[0] + messages[1],
             Catch::Contains("test sample 2") && Catch::Contains("test sample 9"));
}

TEST_CASE("destroying a loader mid-epoch returns promptly and leaves no thread", "[unit]") {
  const int threads_before = thread_count();
  // Each batch takes a worker 16 x 2 ms; a worker stops between samples.
  auto dataset = test_dataset(1000, {}, {}, std::chrono::milliseconds(2));
  LoaderOptions options;
  options.batch_size = 16;
  options.prefetch = 8;
  options.num_workers = 4;
  SECTION("after taking a batch") {
    auto loader = std::make_unique<Loader>(dataset, TransformPipeline(), options);
    loader->start_epoch(0);
    REQUIRE(loader->next());
    CHECK(thread_count() == threads_before + 4);
    const auto start = Clock::now();
    loader.reset();
    CHECK(Clock::now() - start < std::chrono::milliseconds(300));
  }
  SECTION("before any epoch, and right after one starts") {
    const auto start = Clock::now();
    { Loader idle(dataset, TransformPipeline(), options); }
    {
      Loader busy(dataset, TransformPipeline(), options);
      busy.start_epoch(0);
    }
    CHECK(Clock::now() - start < std::chrono::milliseconds(300));
  }
  // The workers are joined; the kernel clears a thread's tid (what join
  // waits for) a moment before /proc stops counting it, so give it that.
  CHECK(wait_until([&] { return thread_count() == threads_before; },
                   std::chrono::milliseconds(500)));
}

TEST_CASE("the loader records queue samples and batch ranges into a trace", "[unit]") {
  using namespace parity::profiler;
  TempDir dir;
  std::int64_t taken = 0;
  {
    RecorderOptions recorder_options;
    recorder_options.path = dir / "run.db";
    recorder_options.command_line = "loader_test";
    Recorder recorder(recorder_options);
    LoaderOptions options;
    options.batch_size = 8;
    options.num_workers = 2;
    options.prefetch = 3;
    options.recorder = &recorder;
    options.queue_name = "train_queue";
    Loader loader(synthetic(64), augmenting(), options);
    loader.start_epoch(0);
    while (loader.next()) {
      ++taken;
      std::this_thread::sleep_for(
          std::chrono::milliseconds(2));  // a consumer slower than the workers
    }
  }
  REQUIRE(taken == 8);
  TraceReader trace(dir / "run.db");
  int consumer_samples = 0;
  schema::for_each<schema::kTable<QueueSampleRow>, &QueueSampleRow::track, &QueueSampleRow::depth,
                   &QueueSampleRow::capacity, &QueueSampleRow::wait_ns>(
      trace.db(), "WHERE role = 2 ORDER BY ts_ns", [&](const QueueSampleRow& sample) {
        ++consumer_samples;
        CHECK(sample.depth <= 3);
        CHECK(sample.capacity == 3);
        CHECK(sample.wait_ns >= 0);
        const TrackRow* queue = trace.track(sample.track);
        REQUIRE(queue);
        CHECK(trace.string(queue->name) == "train_queue");
      });
  CHECK(consumer_samples == 8);
  // One producer sample per batch, from the workers' named threads.
  CHECK(sql::query_int(trace.db(),
                       "SELECT count(*) FROM queue_sample q JOIN track t ON t.id = "
                       "q.thread_track_id JOIN string s ON s.id = t.name_id WHERE q.role = 1 "
                       "AND s.text LIKE 'data worker %' AND q.depth BETWEEN 1 AND 3") == 8);
  // With a slow consumer the workers fill the queue and then wait for room.
  CHECK(sql::query_int(trace.db(),
                       "SELECT count(*) FROM queue_sample WHERE role = 1 AND wait_ns > 0") > 0);
  CHECK(sql::query_int(trace.db(),
                       "SELECT count(DISTINCT r.arg) FROM range r JOIN string s ON s.id = "
                       "r.name_id WHERE s.text = 'load_batch'") == 8);
}

TEST_CASE("delay_ms makes building every batch take at least that long", "[unit]") {
  const std::int64_t workers = GENERATE(0, 1);
  INFO(workers << " workers");
  constexpr auto kDelay = std::chrono::milliseconds(20);
  LoaderOptions options;
  options.batch_size = 4;
  options.num_workers = workers;
  options.delay_ms = 20;
  Loader loader(test_dataset(16), TransformPipeline(), options);
  const auto start = Clock::now();
  const auto batches = epoch_of(loader, 0);
  CHECK(batches.size() == 4);
  // One thread builds the batches either way, one delay after another.
  CHECK(Clock::now() - start >= 4 * kDelay);
}

TEST_CASE("the loader refuses bad options and early calls", "[unit]") {
  auto dataset = test_dataset();
  CHECK_THROWS_AS(Loader(nullptr, TransformPipeline(), {}), parity::Error);
  CHECK_THROWS_AS(
      Loader(dataset, TransformPipeline(), with([](LoaderOptions& o) { o.batch_size = 0; })),
      parity::Error);
  CHECK_THROWS_AS(
      Loader(dataset, TransformPipeline(), with([](LoaderOptions& o) { o.num_workers = -1; })),
      parity::Error);
  CHECK_THROWS_AS(
      Loader(dataset, TransformPipeline(), with([](LoaderOptions& o) { o.prefetch = 0; })),
      parity::Error);
  CHECK_THROWS_WITH(
      Loader(dataset, TransformPipeline(), with([](LoaderOptions& o) { o.delay_ms = -1; })),
      Catch::Contains("non-negative number of milliseconds, got -1"));
  CHECK_THROWS_AS(Loader(dataset, TransformPipeline(),
                         with([](LoaderOptions& o) { o.delay_ms = std::nan(""); })),
                  parity::Error);
  Loader loader(dataset, TransformPipeline(), with([](LoaderOptions& o) { o.num_workers = 1; }));
  CHECK_THROWS_WITH(loader.next(), Catch::Contains("before start_epoch"));
  CHECK_THROWS_AS(loader.start_epoch(-1), parity::Error);
}
