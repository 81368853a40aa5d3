#include "timeline_trace.hpp"

#include <map>
#include <string>

#include "parity/profiler/trace_writer.hpp"

namespace timeline_trace {

using namespace parity::profiler;

namespace {
enum Track : TrackId { kMain = 1, kStream, kLane, kLoss, kQueue };

class Names {
 public:
  explicit Names(TraceWriter& writer) : writer_(writer) { (*this)(""); }
  NameId operator()(const std::string& text) {
    auto [it, added] = ids_.emplace(text, static_cast<NameId>(ids_.size()));
    if (added) writer_.add_string(it->second, text);
    return it->second;
  }

 private:
  TraceWriter& writer_;
  std::map<std::string, NameId> ids_;
};
}  // namespace

void write(const std::filesystem::path& path) {
  TraceWriter writer(path);
  writer.begin();
  Names name(writer);
  writer.set_meta("rank", "0");
  writer.set_meta("world_size", "1");
  writer.set_meta("complete", "1");
  writer.add(TrackRow{kMain, TrackKind::kHostThread, name("main"), 1, 1, {}, {}});
  writer.add(TrackRow{kStream, TrackKind::kGpuStream, name(""), {}, {}, 0, 7});
  writer.add(TrackRow{kLane, TrackKind::kCollective, name("nccl"), {}, {}, {}, {}});
  writer.add(TrackRow{kLoss, TrackKind::kCounter, name("loss"), {}, {}, {}, {}});
  writer.add(TrackRow{kQueue, TrackKind::kQueue, name("train"), {}, {}, {}, {}});

  std::int64_t range_id = 1, activity_id = 1, correlation = 1;
  for (std::int64_t step = 0; step < kSteps; ++step) {
    const std::int64_t s = step * kStepNs;
    const std::int64_t step_id = range_id++;
    writer.add(RangeRow{kMain, s, step_id, kStepNs, name("step"), Category::kStep, 0, {}, step});
    writer.add(StepRow{step, kMain, s, s + kStepNs});
    const std::int64_t forward = range_id++;
    writer.add(RangeRow{kMain, s, forward, 400'000, name("forward"), Category::kPhase, 1, step_id, {}});
    for (std::int64_t op = 0; op < kOpsPerStep; ++op) {
      const std::int64_t start = s + op * 100'000;
      writer.add(RangeRow{kMain, start, range_id++, kOpNs, name("conv"), Category::kOp, 2, forward, {}});
      writer.add(ApiCallRow{kMain, start + 10'000, activity_id++, 5'000, ApiKind::kRuntime,
                            name("cudaLaunchKernel"), correlation});
      GpuActivityRow kernel;
      kernel.track = kStream;
      kernel.start_ns = start + 30'000;
      kernel.id = activity_id++;
      kernel.dur_ns = kKernelNs;
      kernel.name = name("conv_kernel");
      kernel.correlation_id = correlation++;
      kernel.launch = LaunchConfig{{64, 2, 1}, {128, 1, 1}, 1024, 32};
      writer.add(kernel);
    }
    writer.add(RangeRow{kMain, s + 400'000, range_id++, 500'000, name("backward"), Category::kPhase,
                        1, step_id, {}});
    CollectiveRow collective;
    collective.track = kLane;
    collective.start_ns = s + 900'000;
    collective.dur_ns = 80'000;
    collective.op = CollectiveOp::kAllReduce;
    collective.bytes = 1 << 20;
    collective.dtype = "float32";
    collective.bucket = step;
    collective.step = step;
    writer.add(collective);
    writer.add(parity::profiler::CounterRow{kLoss, s + kStepNs, static_cast<double>(kSteps - step)});
  }
  GpuActivityRow overlap;
  overlap.track = kStream;
  overlap.start_ns = 40'000;  // inside the first conv_kernel [30, 70 µs)
  overlap.id = activity_id++;
  overlap.dur_ns = 10'000;
  overlap.name = name("overlap_kernel");
  overlap.correlation_id = 1000;
  writer.add(overlap);
  for (std::int64_t i = 0; i <= kSteps; ++i)
    writer.add(QueueSampleRow{kQueue, i * kStepNs, static_cast<std::uint32_t>(i), 8,
                              QueueRole::kConsumer, kMain, 0});
  writer.commit();
  writer.finalize();
}

}  // namespace timeline_trace
