// NCCL data parallel on one GPU ([gpu]), as far as one device allows: NCCL
// refuses two ranks on the same GPU, so the group here is a single rank.
// What that still checks: the group starts from a bootstrap communicator, an
// AllReduce is queued behind the compute stream's mark and waits for the work
// before it, averages in place, and its device times land on the host's
// clock; the GPU reducer trains ResNet-18 to the same bits as no reducer,
// and its trace puts every bucket after the gradients it carries.
#include "parity/trainer/dist/nccl_collectives.hpp"

#include <cuda_runtime.h>

#include <map>

#include "backend_pair.hpp"
#include "parity/profiler/clock.hpp"
#include "parity/profiler/recorder.hpp"
#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "parity/trainer/dist/data_parallel.hpp"
#include "parity/trainer/dist/device_gradient_reducer.hpp"
#include "parity/trainer/nn/resnet.hpp"
#include "temp_dir.hpp"

using namespace cuda_test;
namespace profiler = parity::profiler;
namespace schema = parity::profiler::schema;

namespace {

// The group of one process.
class SingleRank final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string describe() const override { return "one process"; }
  void allreduce_mean(std::span<float>) override {}
  void broadcast(std::span<float>, int) override {}
  bool any(bool flag) override { return flag; }
  void abort(int code) override { std::_Exit(code); }
};

}  // namespace

TEST_CASE("an NCCL AllReduce waits for the compute stream's mark and keeps device times", "[gpu]") {
  if (skip_without_gpu()) return;
  SingleRank bootstrap;
  const auto collectives = make_nccl_collectives(bootstrap, 0, true);
  CHECK_THAT(collectives->describe(), Catch::StartsWith("NCCL 2."));
  const std::vector<float> values = random_floats(1 << 20, 3);
  const std::span<float> message = collectives->scratch(values.size());
  gpu().synchronize();  // the scratch buffer is zeroed on the compute stream
  REQUIRE(cudaMemcpy(message.data(), values.data(), values.size() * 4, cudaMemcpyHostToDevice) ==
          cudaSuccess);
  // Milliseconds of convolutions on the compute stream between two marks.
  auto conv = gpu().conv2d({.in_channels = 64,
                            .out_channels = 64,
                            .kernel = 3,
                            .padding = 1,
                            .input = {32, 64, 56, 56}});
  const Tensor input = gpu().from_host({32, 64, 56, 56}, random_floats(32 * 64 * 56 * 56, 4));
  (void)conv->forward(input, Mode::kTrain);  // algorithms chosen before the marks
  gpu().synchronize();
  // An empty step re-anchors the device clock: the search above took long
  // enough for GPU and host clocks to drift apart by more than the slack.
  collectives->wait_collectives();
  (void)collectives->end_step();
  const std::int64_t before = profiler::monotonic_ns();
  const std::uint32_t first = collectives->mark_compute();
  for (int i = 0; i < 20; ++i) (void)conv->forward(input, Mode::kTrain);
  const std::uint32_t second = collectives->mark_compute();
  collectives->queue_allreduce_mean(message, second);
  collectives->wait_collectives();
  const DeviceStepTimes times = collectives->end_step();
  const std::int64_t after = profiler::monotonic_ns();

  std::vector<float> reduced(values.size());
  REQUIRE(cudaMemcpy(reduced.data(), message.data(), values.size() * 4, cudaMemcpyDeviceToHost) ==
          cudaSuccess);
  CHECK(reduced == values);  // the mean over one rank
  REQUIRE(times.marks_ns.size() == 2);
  REQUIRE(times.collectives.size() == 1);
  constexpr std::int64_t kSlackNs = 50'000;
  CHECK(times.marks_ns[first] >= before - kSlackNs);
  CHECK(times.marks_ns[second] - times.marks_ns[first] > 500'000);  // the convolutions
  CHECK(times.collectives[0].start_ns >= times.marks_ns[second]);   // waited for them
  CHECK(times.collectives[0].end_ns > times.collectives[0].start_ns);
  CHECK(times.collectives[0].end_ns <= after + kSlackNs);
  // A new step starts with no marks.
  CHECK(collectives->mark_compute() == 0);
  collectives->wait_collectives();
  CHECK(collectives->end_step().collectives.empty());
}

TEST_CASE("the GPU reducer over one NCCL rank trains to the same bits and traces in order",
          "[gpu]") {
  if (skip_without_gpu()) return;
  const Dims input_dims{4, 3, 32, 32};
  const std::vector<float> images = random_floats(4 * 3 * 32 * 32, 9);
  const auto gradients_after_one_step = [&](bool reduce, profiler::Recorder* recorder) {
    const auto backend = make_cuda_backend({.device = 0, .deterministic = true});
    Tracing tracing;
    tracing.recorder = recorder;
    ResNet model(*backend, {18, 10, false, input_dims, 5, Stem::kAuto, {}}, tracing);
    SingleRank bootstrap;
    std::unique_ptr<DeviceCollectives> collectives;
    std::unique_ptr<DeviceGradientReducer> reducer;
    const std::vector<Parameter>& parameters = model.state().parameters;
    if (reduce) {
      collectives = make_nccl_collectives(bootstrap, 0, recorder != nullptr);
      reducer = std::make_unique<DeviceGradientReducer>(
          *collectives, *backend, parameters, gradient_buckets("mb:4", parameters), recorder);
      tracing.gradients = reducer.get();
    }
    if (recorder) recorder->on_step_begin(0);
    const Tensor logits = model.forward(backend->from_host(input_dims, images), Mode::kTrain);
    model.backward(backend->from_host({4, 10}, std::vector<float>(40, 0.025f)));
    if (reducer) {
      reducer->end_backward();
      reducer->finish_step();
    }
    std::vector<std::vector<float>> grads;
    for (const Parameter& p : parameters) grads.push_back(backend->to_host(p.tensors->grad));
    return grads;
  };
  TempDir dir;
  std::vector<std::vector<float>> reduced;
  {
    profiler::RecorderOptions options;
    options.path = dir / "run.db";
    profiler::Recorder recorder(options);
    reduced = gradients_after_one_step(true, &recorder);
  }
  CHECK(reduced == gradients_after_one_step(false, nullptr));

  // Every bucket's AllReduce starts after the device wrote its gradients
  // (and those of the buckets after it, which go first).
  profiler::TraceReader trace(dir / "run.db");
  std::map<std::int64_t, std::int64_t> ready;  // parameter -> device time
  using profiler::CollectiveRow;
  using profiler::GradReadyRow;
  schema::for_each<schema::kTable<GradReadyRow>, &GradReadyRow::param_index, &GradReadyRow::ts_ns>(
      trace.db(), "", [&](const GradReadyRow& grad) { ready[grad.param_index] = grad.ts_ns; });
  REQUIRE(ready.size() == 62);
  int rows = 0;
  schema::for_each<schema::kTable<CollectiveRow>, &CollectiveRow::first_param,
                   &CollectiveRow::start_ns, &CollectiveRow::dur_ns>(
      trace.db(),
      "WHERE track_id IN (SELECT t.id FROM track t JOIN string s ON s.id = t.name_id WHERE "
      "s.text = 'allreduce') ORDER BY start_ns",
      [&](const CollectiveRow& bucket) {
        ++rows;
        std::int64_t last_ready = 0;
        for (std::int64_t p = bucket.first_param; p < 62; ++p)
          last_ready = std::max(last_ready, ready.at(p));
        INFO("bucket from parameter " << bucket.first_param);
        CHECK(bucket.start_ns >= last_ready);
        CHECK(bucket.dur_ns > 0);
      });
  CHECK(rows >= 2);
}
