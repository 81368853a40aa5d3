// The GPU ranks' reducer, driven through a recording stand-in for NCCL (the
// DeviceCollectives interface) with the CPU backend and a real ResNet-18
// backward: each bucket's AllReduce is queued during backward, right behind
// the compute-stream mark made when its last gradient (or that of a bucket
// after it) was issued, over exactly its part of the gradient buffer; the
// host waits for the compute stream at backward's end and for the
// collectives in finish_step; and a traced run stores the device times of
// every gradient and every bucket that the collectives report.
#include "parity/trainer/dist/device_gradient_reducer.hpp"

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "parity/profiler/clock.hpp"
#include "parity/profiler/recorder.hpp"
#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "parity/trainer/backend/cpu_backend.hpp"
#include "parity/trainer/dist/data_parallel.hpp"
#include "parity/trainer/nn/resnet.hpp"
#include "temp_dir.hpp"

using namespace parity::trainer;
namespace profiler = parity::profiler;
namespace schema = parity::profiler::schema;

namespace {

// Every call, in order, as words; device times made up from a base.
class RecordingCollectives final : public DeviceCollectives {
 public:
  struct Queued {
    float* data;
    std::size_t size;
    std::uint32_t after;
  };
  static constexpr std::int64_t kMarkSpacingNs = 1'000, kCollectiveOffsetNs = 50'000'000;

  std::string describe() const override { return "recording"; }
  std::uint32_t mark_compute() override {
    calls.push_back("mark");
    return marks_++;
  }
  void queue_allreduce_mean(std::span<float> values, std::uint32_t after) override {
    calls.push_back("queue");
    queued.push_back({values.data(), values.size(), after});
  }
  void wait_compute() override { calls.push_back("wait_compute"); }
  void wait_collectives() override { calls.push_back("wait_collectives"); }
  DeviceStepTimes end_step() override {
    calls.push_back("end_step");
    DeviceStepTimes times;
    for (std::uint32_t i = 0; i < marks_; ++i) times.marks_ns.push_back(mark_ns(i));
    for (std::size_t i = 0; i < queued.size(); ++i)
      times.collectives.push_back({collective_start_ns(i), collective_start_ns(i) + 5'000});
    marks_ = 0;
    steps.push_back(std::move(queued));
    queued.clear();
    return times;
  }
  std::span<float> scratch(std::size_t) override { return {}; }

  std::int64_t mark_ns(std::uint32_t mark) const { return base_ns + kMarkSpacingNs * mark; }
  std::int64_t collective_start_ns(std::size_t i) const {
    return base_ns + kCollectiveOffsetNs + 10'000 * std::int64_t(i);
  }

  const std::int64_t base_ns = profiler::monotonic_ns();
  std::vector<std::string> calls;
  std::vector<Queued> queued;              // this step
  std::vector<std::vector<Queued>> steps;  // every finished step's

 private:
  std::uint32_t marks_ = 0;
};

constexpr std::int64_t kBatch = 2, kClasses = 4, kSize = 16;

struct Run {
  std::unique_ptr<Backend> backend = make_cpu_backend({1, true});
  Tracing tracing;
  ResNet model{
      *backend, {18, kClasses, false, {kBatch, 3, kSize, kSize}, 3, Stem::kAuto, {}}, tracing};

  void step(DeviceGradientReducer& reducer) {
    std::mt19937 random(5);
    std::normal_distribution<float> pixel;
    std::vector<float> images(static_cast<std::size_t>(kBatch * 3 * kSize * kSize));
    for (float& value : images) value = pixel(random);
    const Tensor logits =
        model.forward(backend->from_host({kBatch, 3, kSize, kSize}, images), Mode::kTrain);
    std::vector<float> grad(static_cast<std::size_t>(kBatch * kClasses), 0.125f);
    model.backward(backend->from_host({kBatch, kClasses}, grad));
    reducer.end_backward();
    reducer.finish_step();
  }
};

std::vector<std::string> without_marks_and_queues(const std::vector<std::string>& calls) {
  std::vector<std::string> rest;
  for (const std::string& call : calls)
    if (call != "mark" && call != "queue") rest.push_back(call);
  return rest;
}

}  // namespace

TEST_CASE("GPU ranks queue each bucket behind the mark its last gradient made", "[unit]") {
  Run run;
  const std::vector<Parameter>& parameters = run.model.state().parameters;
  REQUIRE(parameters.size() == 62);
  RecordingCollectives collectives;
  DeviceGradientReducer reducer(collectives, *run.backend, parameters,
                                gradient_buckets("index:[20,40]", parameters), nullptr);
  run.tracing.gradients = &reducer;
  run.step(reducer);
  run.step(reducer);

  // Untraced, a mark is made only where a bucket goes: buckets 2, 1, 0.
  CHECK(std::count(collectives.calls.begin(), collectives.calls.end(), "mark") == 6);
  CHECK(without_marks_and_queues(collectives.calls) ==
        std::vector<std::string>{"wait_compute", "wait_collectives", "end_step", "wait_compute",
                                 "wait_collectives", "end_step"});
  REQUIRE(collectives.steps.size() == 2);
  // The messages: parameters 41..61, 21..40 and 0..20 of the contiguous
  // gradient buffer, one after the other, each at least as large as its
  // gradients (larger by alignment, and where oneDNN keeps a gradient in a
  // padded blocked layout).
  const auto floats = [&](std::uint32_t first, std::uint32_t last) {
    std::size_t count = 0;
    for (std::uint32_t i = first; i <= last; ++i)
      count += static_cast<std::size_t>(element_count(parameters[i].shape));
    return count;
  };
  for (const auto& step : collectives.steps) {
    REQUIRE(step.size() == 3);
    CHECK(step[0].size >= floats(41, 61));
    CHECK(step[1].size >= floats(21, 40));
    CHECK(step[2].size >= floats(0, 20));
    CHECK(step[1].data + step[1].size == step[0].data);
    CHECK(step[2].data + step[2].size == step[1].data);
    // Each behind its own mark, in order.
    CHECK(step[0].after == 0);
    CHECK(step[1].after == 1);
    CHECK(step[2].after == 2);
  }
}

TEST_CASE("a traced GPU rank stores the device times of every gradient and bucket", "[unit]") {
  TempDir dir;
  RecordingCollectives collectives;
  {
    profiler::RecorderOptions options;
    options.path = dir / "run.db";
    profiler::Recorder recorder(options);
    Run run;
    const std::vector<Parameter>& parameters = run.model.state().parameters;
    DeviceGradientReducer reducer(collectives, *run.backend, parameters,
                                  gradient_buckets("index:[20,40]", parameters), &recorder);
    CHECK(reducer.records_ready_times());
    run.tracing.recorder = &recorder;
    run.tracing.gradients = &reducer;
    recorder.on_step_begin(0);
    run.step(reducer);
  }
  profiler::TraceReader trace(dir / "run.db");
  const std::int64_t origin = std::stoll(*trace.meta_value("clock_origin_ns"));
  // One row per gradient (not the layers' host times as well), each at its
  // own mark: traced, every gradient marks the compute stream.
  using profiler::GradReadyRow;
  std::map<std::int64_t, std::uint32_t> mark_of;  // parameter -> mark
  schema::for_each<schema::kTable<GradReadyRow>, &GradReadyRow::param_index, &GradReadyRow::ts_ns>(
      trace.db(), "ORDER BY ts_ns", [&](const GradReadyRow& grad) {
        const std::int64_t offset = grad.ts_ns + origin - collectives.base_ns;
        REQUIRE(offset % RecordingCollectives::kMarkSpacingNs == 0);
        mark_of[grad.param_index] =
            static_cast<std::uint32_t>(offset / RecordingCollectives::kMarkSpacingNs);
      });
  REQUIRE(mark_of.size() == 62);
  // Each bucket waited for the mark of its last gradient issued, counting
  // the buckets after it (they go first).
  REQUIRE(collectives.steps.size() == 1);
  const auto& queued = collectives.steps[0];
  REQUIRE(queued.size() == 3);
  const auto last_mark = [&](std::int64_t first) {
    std::uint32_t mark = 0;
    for (std::int64_t p = first; p < 62; ++p) mark = std::max(mark, mark_of.at(p));
    return mark;
  };
  CHECK(queued[0].after == last_mark(41));
  CHECK(queued[1].after == last_mark(21));
  CHECK(queued[2].after == last_mark(0));
  // The collective rows: the reported device times, bucket by bucket.
  using profiler::CollectiveRow;
  schema::Select<schema::kTable<CollectiveRow>, &CollectiveRow::bucket, &CollectiveRow::first_param,
                 &CollectiveRow::last_param, &CollectiveRow::start_ns, &CollectiveRow::dur_ns,
                 &CollectiveRow::step>
      rows(trace.db(),
           "WHERE track_id IN (SELECT t.id FROM track t JOIN string s ON s.id = t.name_id WHERE "
           "s.text = 'allreduce') ORDER BY start_ns");
  const std::vector<std::array<std::int64_t, 3>> expected{{2, 41, 61}, {1, 21, 40}, {0, 0, 20}};
  CollectiveRow row;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    REQUIRE(rows.next(row));
    CHECK(row.bucket == expected[i][0]);
    CHECK(row.first_param == expected[i][1]);
    CHECK(row.last_param == expected[i][2]);
    CHECK(row.start_ns + origin == collectives.collective_start_ns(i));
    CHECK(row.dur_ns == 5'000);
    CHECK(row.step == 0);
  }
  CHECK_FALSE(rows.next(row));
}
