#include "small_trace.hpp"

#include <string>
#include <vector>

#include "parity/profiler/trace_writer.hpp"

namespace small_trace {
namespace {

using namespace parity::profiler;

enum Track : TrackId { kMain = 1, kLoader, kStream, kQueue, kLane, kLoss, kLossScale };

class Builder {
 public:
  explicit Builder(TraceWriter& writer) : writer_(writer) {}

  NameId name(const std::string& text) {
    for (NameId id = 0; id < names_.size(); ++id)
      if (names_[id] == text) return id;
    names_.push_back(text);
    writer_.add_string(static_cast<NameId>(names_.size() - 1), text);
    return static_cast<NameId>(names_.size() - 1);
  }

  std::int64_t range(std::int64_t start, std::int64_t dur, const std::string& text,
                     Category category, std::uint32_t depth, std::optional<std::int64_t> parent,
                     std::optional<std::int64_t> arg = std::nullopt) {
    const std::int64_t id = next_range_++;
    writer_.add(RangeRow{kMain, start, id, dur, name(text), category, depth, parent, arg});
    return id;
  }

  // An op range inside `layer` (none: at the top, outside every step),
  // launching one kernel.
  void op(std::int64_t start, std::int64_t dur, const std::string& text,
          std::optional<std::int64_t> layer, const std::string& kernel) {
    range(start, dur, text, Category::kOp, layer ? 3 : 0, layer);
    const std::int64_t correlation = next_correlation_++;
    const std::int64_t launch = start + 10'000;
    writer_.add(ApiCallRow{kMain, launch, next_activity_++, 5'000, ApiKind::kRuntime,
                           name("cudaLaunchKernel"), correlation});
    GpuActivityRow row;
    row.track = kStream;
    row.start_ns = launch + 5'000 + 20'000;
    row.id = next_activity_++;
    row.dur_ns = dur / 2;
    row.name = name(kernel);
    row.correlation_id = correlation;
    row.launch = LaunchConfig{{64, 1, 1}, {128, 1, 1}, 0, 32};
    writer_.add(row);
  }

 private:
  TraceWriter& writer_;
  std::vector<std::string> names_{""};
  std::int64_t next_range_ = 1, next_correlation_ = 1, next_activity_ = 1;
};

}  // namespace

void write(const std::filesystem::path& path, std::int64_t rank) {
  TraceWriter writer(path);
  writer.begin();
  Builder b(writer);
  b.name("");
  writer.set_meta("command_line", "small_trace");
  writer.set_meta("rank", std::to_string(rank));
  writer.set_meta("world_size", std::to_string(kWorldSize));
  writer.set_meta("complete", "1");
  writer.set_meta("dropped_records", "0");
  writer.add(TrackRow{kMain, TrackKind::kHostThread, b.name("main"), 1, 1, {}, {}});
  writer.add(TrackRow{kLoader, TrackKind::kHostThread, b.name("data loader"), 1, 2, {}, {}});
  writer.add(TrackRow{kStream, TrackKind::kGpuStream, b.name("GPU 0 stream 7"), {}, {}, 0, 7});
  writer.add(TrackRow{kQueue, TrackKind::kQueue, b.name("train"), {}, {}, {}, {}});
  writer.add(TrackRow{kLane, TrackKind::kCollective, b.name("nccl allreduce"), {}, {}, {}, {}});
  writer.add(TrackRow{kLoss, TrackKind::kCounter, b.name("loss"), {}, {}, {}, {}});
  writer.add(TrackRow{kLossScale, TrackKind::kCounter, b.name("loss_scale"), {}, {}, {}, {}});

  // Outside the steps: weight layouts at start-up, a parameter broadcast, and
  // a checkpoint between steps 2 and 3; no analysis counts them.
  b.op(2 * kMs, kMs, "reorder", std::nullopt, "reorder_kernel");
  CollectiveRow broadcast;
  broadcast.track = kLane;
  broadcast.start_ns = 4 * kMs;
  broadcast.dur_ns = kMs;
  broadcast.op = CollectiveOp::kBroadcast;
  broadcast.bytes = kAllReduceBytes;
  broadcast.dtype = "float32";
  writer.add(broadcast);
  b.op(kFirstStepStart + 2 * kStepPeriod + 10'500'000, 500'000, "reorder", std::nullopt,
       "reorder_kernel");

  const double losses[] = {2.0, 1.5, 1.2, 1.0};
  const double scales[] = {65536, 32768, 32768, 65536};
  for (int s = 0; s < kSteps; ++s) {
    const std::int64_t start = kFirstStepStart + s * kStepPeriod;
    const std::int64_t shift = s == 0 ? kMs : 0;  // step 0 waits 1 ms longer for data
    const std::int64_t dur = 10 * kMs + shift;
    const std::int64_t step = b.range(start, dur, "step", Category::kStep, 0, std::nullopt, s);
    writer.add(StepRow{s, kMain, start, start + dur});
    const std::int64_t t = start + shift;  // where a steady step's times count from
    b.range(start, kMs + shift, "data_wait", Category::kPhase, 1, step);
    const std::int64_t forward = b.range(t + kMs, 3 * kMs, "forward", Category::kPhase, 1, step);
    const std::int64_t conv = b.range(t + kMs, 2 * kMs, "conv1", Category::kLayer, 2, forward);
    b.op(t + 1'100'000, 1'800'000, "conv2d", conv, "implicit_gemm_fprop");
    const std::int64_t fc = b.range(t + 3 * kMs, kMs, "fc", Category::kLayer, 2, forward);
    b.op(t + 3'100'000, 800'000, "linear", fc, "gemm_nt");
    b.op(t + 3'900'000, 50'000, "reorder", fc, "reorder_kernel");
    const std::int64_t backward =
        b.range(t + 4 * kMs, 4 * kMs, "backward", Category::kPhase, 1, step);
    const std::int64_t fc_back = b.range(t + 4 * kMs, kMs, "fc", Category::kLayer, 2, backward);
    b.op(t + 4'100'000, 800'000, "linear_backward", fc_back, "gemm_tn");
    const std::int64_t conv_back =
        b.range(t + 5 * kMs, 3 * kMs, "conv1", Category::kLayer, 2, backward);
    b.op(t + 5'100'000, 2'800'000, "conv2d_backward", conv_back, "implicit_gemm_dgrad");
    b.range(t + 8 * kMs, 1'500'000, "optimizer", Category::kPhase, 1, step);

    CollectiveRow allreduce;
    allreduce.track = kLane;
    allreduce.start_ns = t + 7 * kMs;
    allreduce.dur_ns = 2 * kMs;
    allreduce.bytes = kAllReduceBytes;
    allreduce.dtype = "float32";
    allreduce.bucket = 0;
    allreduce.first_param = 0;
    allreduce.last_param = 1;
    allreduce.rank = rank;
    allreduce.step = s;
    writer.add(allreduce);

    const std::int64_t waited = s < 2 ? kMs + shift : 5'000;
    writer.add(QueueSampleRow{kQueue, t + kMs, 0, 2, QueueRole::kConsumer, kMain, waited});
    writer.add(QueueSampleRow{kQueue, start - 3 * kMs, 1, 2, QueueRole::kProducer, kLoader, 0});
    writer.add(CounterRow{kLoss, start + dur, losses[s]});
    writer.add(CounterRow{kLossScale, start + dur, scales[s]});
  }
  writer.commit();
  writer.finalize();
}

}  // namespace small_trace
