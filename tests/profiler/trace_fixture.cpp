#include "trace_fixture.hpp"

#include "parity/profiler/trace_writer.hpp"

namespace fixture {

using namespace parity::profiler;

void write_sample_trace(const std::filesystem::path& path) {
  TraceWriter writer(path);
  writer.begin();
  const char* strings[] = {"", "main", "loader", "GPU 0 stream 7", "loss", "train_queue",
                           "allreduce", "step", "layer\"1\"", "conv", "relu", "cudaLaunchKernel",
                           "sgemm_kernel", "Memcpy HtoD", "backward"};
  for (NameId id = 0; id < std::size(strings); ++id) writer.add_string(id, strings[id]);
  writer.set_meta("command_line", "parity-train train --config r50.yaml");
  writer.set_meta("pid", "4242");
  writer.set_meta("rank", "0");
  writer.set_meta("complete", "1");
  writer.set_meta("dropped_records", "0");
  writer.add(TrackRow{kMainThread, TrackKind::kHostThread, 1, 4242, 4242, {}, {}});
  writer.add(TrackRow{kLoaderThread, TrackKind::kHostThread, 2, 4242, 4243, {}, {}});
  writer.add(TrackRow{kStream, TrackKind::kGpuStream, 3, {}, {}, 0, 7});
  writer.add(TrackRow{kLossCounter, TrackKind::kCounter, 4, {}, {}, {}, {}});
  writer.add(TrackRow{kQueue, TrackKind::kQueue, 5, {}, {}, {}, {}});
  writer.add(TrackRow{kLane, TrackKind::kCollective, 6, {}, {}, {}, {}});
  writer.add(ParameterRow{0, "conv1.weight", "64,3,7,7", "float32", 37632});
  writer.add(ParameterRow{1, "fc.bias", "10", "float32", 40});

  std::int64_t range_id = 1, correlation = 100, activity_id = 1;
  for (int step = 0; step < kSteps; ++step) {
    const std::int64_t step_start = 1'000'000 + step * 10'000'000LL;
    const std::int64_t step_id = range_id++;
    writer.add(RangeRow{kMainThread, step_start, step_id, 9'000'000, 7, Category::kStep, 0,
                        std::nullopt, step});
    writer.add(StepRow{step, kMainThread, step_start, step_start + 9'000'000});
    for (int layer = 0; layer < kLayersPerStep; ++layer) {
      const std::int64_t layer_start = step_start + 100'000 + layer * 2'000'000LL;
      const std::int64_t layer_id = range_id++;
      writer.add(RangeRow{kMainThread, layer_start, layer_id, 1'500'000, 8, Category::kLayer, 1,
                          step_id, std::nullopt});
      writer.add(RangeRow{kMainThread, layer_start + 10'000, range_id++, 600'000, 9, Category::kOp,
                          2, layer_id, std::nullopt});
      writer.add(RangeRow{kMainThread, layer_start + 700'000, range_id++, 500'000, 10,
                          Category::kOp, 2, layer_id, std::nullopt});
    }
    for (int kernel = 0; kernel < kKernelsPerStep; ++kernel) {
      const std::int64_t launch = step_start + 200'000 + kernel * 1'000'000LL;
      writer.add(ApiCallRow{kMainThread, launch, activity_id++, 5'000, ApiKind::kRuntime, 11,
                            correlation});
      GpuActivityRow row;
      row.track = kStream;
      row.start_ns = launch + 20'000;
      row.id = activity_id++;
      row.dur_ns = 300'000;
      row.name = 12;
      row.correlation_id = correlation++;
      row.launch = LaunchConfig{{128, 2, 1}, {256, 1, 1}, 1024, 64};
      writer.add(row);
    }
    GpuActivityRow copy;
    copy.track = kStream;
    copy.start_ns = step_start + 50'000;
    copy.id = activity_id++;
    copy.dur_ns = 40'000;
    copy.kind = GpuActivityKind::kMemcpy;
    copy.name = 13;
    copy.bytes = 1 << 20;
    copy.copy_kind = 1;
    writer.add(copy);
    writer.add(CounterRow{kLossCounter, step_start + 9'000'000, 2.5 - step * 0.25});
    writer.add(QueueSampleRow{kQueue, step_start, static_cast<std::uint32_t>(step), 4,
                              QueueRole::kConsumer, kMainThread, 1000 * step});
    writer.add(InstantRow{kLoaderThread, step_start - 500, 14, Category::kUser, 7});
    writer.add(GradReadyRow{step, 1, step_start + 8'000'000, 40, kMainThread});
    writer.add(GradReadyRow{step, 0, step_start + 8'500'000, 37632, kMainThread});
    writer.add(CollectiveRow{kLane, step_start + 8'100'000, 700'000, CollectiveOp::kAllReduce,
                             37672, "float32", 0, 0, 1, 0, step});
  }
  writer.commit();
  writer.finalize();
}

}  // namespace fixture
