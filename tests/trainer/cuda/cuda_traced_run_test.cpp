// A traced training run on the GPU ([gpu]): CUPTI follows the trace's
// capture window, and every kernel of a recorded step comes back with its
// launch call and phase, and every layer's kernel with its layer.
#include <optional>
#include <sstream>

#include "backend_pair.hpp"
#include "parity/profiler/gpu_attribution.hpp"
#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/trainer/config/train_config.hpp"
#include "parity/trainer/train/training_run.hpp"
#include "temp_dir.hpp"

using namespace cuda_test;
using namespace parity::profiler;

namespace {

// Kernels that run outside any layer: host data in and out, the loss, the optimizer.
bool outside_layers(const std::string& kernel) {
  for (const char* name :
       {"transpose_kernel", "cross_entropy", "sgd_kernel", "count_non_finite", "fill_kernel"})
    if (kernel.find(name) != std::string::npos) return true;
  return false;
}

// ResNet-18 on 16-pixel synthetic images, 4 steps of 8.
TrainConfig small_gpu_run() {
  return load_train_config(
      {}, {"dataset=synthetic", "net_name=resnet18", "class_num=4", "batch_size=8",
           "train_image_size=16", "synthetic_size=32", "epoch_size=1", "save_checkpoint=false",
           "device_target=GPU", "num_workers=1"});
}

// Trains it with a trace at `db` (only `steps`, when given): all 4 steps must run.
void train_traced(const std::filesystem::path& db, std::optional<StepSelection> steps) {
  TrainOptions options;
  options.trace = db;
  options.trace_steps = std::move(steps);
  std::ostringstream log;
  const TrainSummary summary = train(small_gpu_run(), options, log);
  INFO(log.str());
  REQUIRE(summary.steps == 4);
}

}  // namespace

TEST_CASE("a traced GPU run has every kernel of its steps with a launch, a phase and a layer",
          "[gpu]") {
  if (skip_without_gpu()) return;
  TempDir dir;
  train_traced(dir / "gpu.db", StepSelection::parse("1-2", "--trace-steps"));

  TraceReader trace(dir / "gpu.db");
  CHECK(trace.meta_value("complete") == "1");
  CHECK(trace.meta_value("gpu.dropped_records") == "0");
  const GpuAttribution attribution = attribute_gpu_work(trace);
  std::uint64_t kernels = 0, in_layers = 0;
  for (const GpuWorkAttribution& work : attribution.work) {
    if (work.kind != GpuActivityKind::kKernel) continue;
    const std::string name = trace.string(work.name);
    INFO(name);
    ++kernels;
    CHECK(work.launch_row.has_value());
    REQUIRE(work.context.step.has_value());  // the window held steps 1-2 only
    CHECK(work.context.phase.has_value());
    if (!outside_layers(name)) {
      CHECK(work.context.layer.has_value());
      in_layers += work.context.layer.has_value();
    }
  }
  // ResNet-18: 20 convolutions, 20 batch norms, pooling and the classifier, both ways, twice.
  CHECK(in_layers > 2 * 80);
  CHECK(kernels > in_layers);
}

TEST_CASE("a GPU run copies each batch on a stream of its own before the compute stream uses it",
          "[gpu]") {
  if (skip_without_gpu()) return;
  TempDir dir;
  train_traced(dir / "gpu.db", std::nullopt);

  TraceReader trace(dir / "gpu.db");
  constexpr std::int64_t kBatchBytes = 8 * 3 * 16 * 16 * 4;
  // Each batch's host-to-device copy, and the transpose that reads it.
  using Activity = StoredGpuActivityRow;
  schema::Select<schema::kTable<Activity>, &Activity::track, &Activity::start_ns, &Activity::dur_ns>
      copies(trace.db(), "WHERE kind = 2 AND copy_kind = 1 AND bytes = ?1 ORDER BY start_ns");
  copies.statement().bind(1, kBatchBytes);
  std::vector<std::pair<std::int64_t, std::int64_t>> copy_rows;  // track, end
  for (Activity copy; copies.next(copy);)
    copy_rows.emplace_back(copy.track, copy.start_ns + copy.dur_ns);
  std::vector<std::pair<std::int64_t, std::int64_t>> transpose_rows;  // track, start
  schema::for_each<schema::kTable<Activity>, &Activity::track, &Activity::start_ns>(
      trace.db(),
      "WHERE kind = 1 AND name_id IN (SELECT id FROM string WHERE text LIKE "
      "'%transpose_kernel%') ORDER BY start_ns",
      [&](const Activity& kernel) { transpose_rows.emplace_back(kernel.track, kernel.start_ns); });
  // One batch per step (weights written before training take the other
  // path); the last four transposes are the batches'.
  REQUIRE(copy_rows.size() == 4);
  REQUIRE(transpose_rows.size() >= 4);
  const auto first_batch_transpose = transpose_rows.end() - 4;
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& [copy_track, copy_end] = copy_rows[i];
    const auto& [kernel_track, kernel_start] = *(first_batch_transpose + std::ptrdiff_t(i));
    INFO("batch " << i);
    CHECK(copy_track != kernel_track);  // the copy stream, not the compute stream
    CHECK(kernel_start >= copy_end);    // the compute stream waited for the copy
  }
}
