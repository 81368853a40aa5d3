#include "synth_rank.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "parity/core/version.hpp"
#include "parity/profiler/clock.hpp"

namespace parity::analyzer::synth {
namespace {

using profiler::Category;
using profiler::TrackKind;

constexpr std::int64_t kRowsPerTransaction = 100'000;
// The host runs ahead of the GPU until the launch queue holds this much work;
// then each launch blocks until the GPU has caught up (its queue latency grows).
constexpr std::int64_t kMaxQueuedNs = 2'000'000;
constexpr double kStragglerSlowdown = 1.25;
constexpr double kWarmUpSlowdown = 3;  // first step: autotuning, allocations, lazy init
constexpr double kMaxLossScale = 65536;
constexpr std::int64_t kLossScaleGrowthSteps = 200;  // good steps before the scale doubles
constexpr double kMemoryCapacity = 80.0 * double(1LL << 30);
constexpr std::int64_t kComputeStream = 7, kCopyStream = 13;
constexpr double kCopyBytesPerNs = 25;  // pinned host-to-device copies over PCIe 5

std::string command_line(const SynthOptions& options, const std::filesystem::path& path) {
  std::string line = "parity synth --events " + std::to_string(options.events) + " -o " +
                     path.string() + " --ranks " + std::to_string(options.ranks) + " --seed " +
                     std::to_string(options.seed);
  if (!options.gpu) line += " --cpu-only";
  if (options.straggler_rank >= 0)
    line += " --straggler-rank " + std::to_string(options.straggler_rank);
  return line;
}

// Nanoseconds from a modelled duration, at least 1.
std::int64_t ns(double value) {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(value + 0.5));
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text;
  for (const std::int64_t extent : shape)
    text += (text.empty() ? "" : ",") + std::to_string(extent);
  return text;
}

}  // namespace

RankTimeline::RankTimeline(const SynthSetup& setup, const SynthOptions& options, int rank,
                           const std::filesystem::path& path, std::int64_t base_unix_ns)
    : setup_(setup),
      writer_(path),
      random_(derive_seed(options.seed, rank_stream(rank))),
      rank_(rank),
      straggler_(rank == options.straggler_rank ? kStragglerSlowdown : 1.0) {
  skew_ns_ = rank == 0 ? 0 : random_.uniform_int(1'000, 6'000);
  pid_ = random_.uniform_int(1'000, 60'000);
  const DeviceTiming& timing = setup_.timing;
  loader_ = std::make_unique<LoaderSimulation>(
      timing.setup_ns / 50,
      [this] {
        // Mostly faster than a step, so the queue stays full; now and then a
        // slow read (a cold file, a big image) that can empty it.
        const double slow = random_.chance(0.015) ? random_.uniform(6, 10) : 1.0;
        return ns(setup_.timing.load_batch_ns * random_.jitter(0.1) * slow);
      },
      random_);
  step_start_ = timing.setup_ns + random_.uniform_int(0, 100'000);
  bucket_ready_.assign(setup_.buckets.size(), 0);
  writer_.begin();
  write_header(options, base_unix_ns);
  add_tracks();
}

void RankTimeline::write_header(const SynthOptions& options, std::int64_t base_unix_ns) {
  const nlohmann::json config = {{"generator", "parity synth"},
                                 {"model", "resnet50"},
                                 {"batch_size", setup_.timing.batch},
                                 {"events", options.events},
                                 {"ranks", options.ranks},
                                 {"seed", options.seed},
                                 {"gpu", options.gpu},
                                 {"straggler_rank", options.straggler_rank}};
  writer_.set_meta("tool_version", kVersion);
  writer_.set_meta("command_line", command_line(options, writer_.path()));
  writer_.set_meta("config", config.dump());
  writer_.set_meta("host", "synth-node" + std::to_string(rank_ / 8));
  writer_.set_meta("pid", std::to_string(pid_));
  writer_.set_meta("rank", std::to_string(rank_));
  writer_.set_meta("world_size", std::to_string(options.ranks));
  writer_.set_meta("clock", "CLOCK_MONOTONIC");
  // A made-up CLOCK_MONOTONIC reading at trace time 0 (about 17 minutes after boot).
  writer_.set_meta("clock_origin_ns", std::to_string(1'000'000'000'000LL + skew_ns_));
  writer_.set_meta("clock_origin_unix_ns", std::to_string(base_unix_ns + skew_ns_));
  writer_.set_meta("tick_source", "synthetic");
  writer_.set_meta("created_at", profiler::utc_now_iso8601());
  writer_.set_meta("dropped_records", "0");
  writer_.set_meta("complete", "0");
  for (std::size_t i = 0; i < setup_.model.parameters.size(); ++i) {
    const ModelParameter& parameter = setup_.model.parameters[i];
    writer_.add(profiler::ParameterRow{static_cast<std::int64_t>(i), parameter.name,
                                       shape_text(parameter.shape), "float32", parameter.bytes});
  }
}

void RankTimeline::add_tracks() {
  Names names = setup_.names;  // plus this rank's track names
  profiler::TrackId next = 1;
  const auto add = [&](TrackKind kind, const std::string& name, std::optional<std::int64_t> tid,
                       std::optional<std::int64_t> stream = std::nullopt) {
    const bool device = kind == TrackKind::kGpuDevice || kind == TrackKind::kGpuStream;
    writer_.add(profiler::TrackRow{
        next, kind, names.intern(name), tid ? std::optional<std::int64_t>(pid_) : std::nullopt, tid,
        device ? std::optional<std::int64_t>(rank_) : std::nullopt, stream});
    return next++;
  };
  main_ = add(TrackKind::kHostThread, "main", pid_);
  loader_thread_ = add(TrackKind::kHostThread, "data loader", pid_ + 3);
  queue_ = add(TrackKind::kQueue, "train", std::nullopt);
  loss_ = add(TrackKind::kCounter, "loss", std::nullopt);
  lr_ = add(TrackKind::kCounter, "lr", std::nullopt);
  if (setup_.gpu) {
    loss_scale_ = add(TrackKind::kCounter, "loss_scale", std::nullopt);
    memory_used_ = add(TrackKind::kCounter, "memory_used_bytes", std::nullopt);
    memory_capacity_ = add(TrackKind::kCounter, "memory_capacity_bytes", std::nullopt);
    const std::string gpu = "GPU " + std::to_string(rank_);
    add(TrackKind::kGpuDevice, gpu, std::nullopt);
    compute_stream_ = add(TrackKind::kGpuStream, gpu + " stream " + std::to_string(kComputeStream),
                          std::nullopt, kComputeStream);
    copy_stream_ = add(TrackKind::kGpuStream, gpu + " stream " + std::to_string(kCopyStream),
                       std::nullopt, kCopyStream);
  }
  if (setup_.world_size > 1)
    lane_ =
        add(TrackKind::kCollective, setup_.gpu ? "nccl allreduce" : "mpi allreduce", std::nullopt);
  const std::vector<std::string>& texts = names.texts();
  for (std::size_t id = 0; id < texts.size(); ++id)
    writer_.add_string(static_cast<profiler::NameId>(id), texts[id]);
}

void RankTimeline::open(profiler::NameId name, Category category, std::optional<std::int64_t> arg) {
  const int parent = open_ranges_.empty() ? -1 : open_ranges_.back();
  step_ranges_.push_back(
      {now_, now_, name, category, static_cast<std::uint32_t>(open_ranges_.size()), parent, arg});
  open_ranges_.push_back(static_cast<int>(step_ranges_.size()) - 1);
}

void RankTimeline::close_range() {
  step_ranges_[static_cast<std::size_t>(open_ranges_.back())].end = now_;
  open_ranges_.pop_back();
}

void RankTimeline::run_until_optimizer(std::int64_t step) {
  write_loader_ranges(step_start_);  // those that started between the steps
  step_factor_ = random_.jitter(0.02) * straggler_ * (step == 0 ? kWarmUpSlowdown : 1.0);
  now_ = step_start_;
  open(setup_.ids.step, Category::kStep, step);
  pause(1'000, 3'000);
  open(setup_.ids.data_wait, Category::kPhase);
  now_ = loader_->take(now_);
  close_range();

  pause(2'000, 5'000);
  open(setup_.ids.forward, Category::kPhase);
  if (setup_.gpu) copy_input();
  for (std::size_t layer = 0; layer < setup_.model.layers.size(); ++layer)
    run_layer(layer, false, step);
  pause(1'000, 3'000);
  close_range();

  pause(2'000, 5'000);
  open(setup_.ids.backward, Category::kPhase);
  for (std::size_t layer = setup_.model.layers.size(); layer-- > 0;) run_layer(layer, true, step);
  pause(1'000, 3'000);
  close_range();
}

void RankTimeline::run_layer(std::size_t layer, bool backward, std::int64_t step) {
  const LayerNames& names = setup_.layer_names[layer];
  pause(2'000, 5'000);
  open(names.module, Category::kLayer);
  pause(500, 1'500);
  if (backward ? setup_.reorder_backward[layer] : setup_.reorder_forward[layer])
    run_op(setup_.ids.reorder, setup_.reorder_ns[layer], &setup_.kernels.reorder);
  if (backward) {
    run_op(names.backward_op, setup_.backward_ns[layer],
           setup_.gpu ? &setup_.kernels.backward[layer] : nullptr);
    if (setup_.world_size > 1) grads_ready(layer, step);
  } else {
    run_op(names.forward_op, setup_.forward_ns[layer],
           setup_.gpu ? &setup_.kernels.forward[layer] : nullptr);
  }
  pause(500, 1'500);
  close_range();
}

// One op range: on the GPU its kernel launches, on the CPU its compute.
void RankTimeline::run_op(profiler::NameId name, double cost_ns, const KernelPlan* kernels) {
  open(name, Category::kOp);
  if (setup_.gpu) {
    pause(2'000, 6'000);  // the framework's dispatch
    for (std::size_t i = 0; i < kernels->size(); ++i) {
      if (i > 0) pause(1'000, 3'000);
      const KernelLaunch& kernel = (*kernels)[i];
      launch(kernel, ns(cost_ns * kernel.share * step_factor_ * random_.jitter(0.03)));
    }
    pause(1'000, 3'000);
  } else {
    pause(1'000, 3'000);
    now_ += ns(cost_ns * step_factor_ * random_.jitter(0.03));
    pause(500, 2'000);
  }
  close_range();
}

void RankTimeline::launch(const KernelLaunch& kernel, std::int64_t duration) {
  const std::int64_t api_start = now_;
  const std::int64_t correlation = next_correlation_++;
  const std::int64_t queued = std::max(api_start + random_.uniform_int(2'000, 5'000), input_ready_);
  input_ready_ = 0;
  const std::int64_t start = std::max(queued, gpu_free_);
  const std::int64_t api_end =
      std::max(api_start + random_.uniform_int(3'500, 7'000), start - kMaxQueuedNs);
  writer_.add(profiler::ApiCallRow{main_, local(api_start), next_activity_id_++,
                                   api_end - api_start, profiler::ApiKind::kRuntime,
                                   setup_.ids.launch_kernel, correlation});
  profiler::GpuActivityRow row;
  row.track = compute_stream_;
  row.start_ns = local(start);
  row.id = next_activity_id_++;
  row.dur_ns = duration;
  row.name = kernel.name;
  row.correlation_id = correlation;
  row.launch = kernel.config;
  writer_.add(row);
  rows_ += 2;
  gpu_free_ = start + duration;
  now_ = api_end;
}

// The batch's host-to-device copy, on its own stream; the first forward kernel waits for it.
void RankTimeline::copy_input() {
  pause(2'000, 5'000);
  const std::int64_t api_start = now_;
  const std::int64_t correlation = next_correlation_++;
  const std::int64_t start = std::max(api_start + random_.uniform_int(3'000, 6'000), copy_free_);
  const std::int64_t duration =
      ns(double(setup_.batch_bytes) / kCopyBytesPerNs * random_.jitter(0.02));
  const std::int64_t api_end = api_start + random_.uniform_int(6'000, 10'000);
  writer_.add(profiler::ApiCallRow{main_, local(api_start), next_activity_id_++,
                                   api_end - api_start, profiler::ApiKind::kRuntime,
                                   setup_.ids.memcpy_async, correlation});
  profiler::GpuActivityRow row;
  row.track = copy_stream_;
  row.start_ns = local(start);
  row.id = next_activity_id_++;
  row.dur_ns = duration;
  row.kind = profiler::GpuActivityKind::kMemcpy;
  row.name = setup_.ids.memcpy_htod;
  row.correlation_id = correlation;
  row.bytes = setup_.batch_bytes;
  row.copy_kind = 1;  // HtoD
  writer_.add(row);
  rows_ += 2;
  copy_free_ = input_ready_ = start + duration;
  now_ = api_end;
}

// The host waits for the GPU to finish everything queued (a value read back).
void RankTimeline::synchronize() {
  const std::int64_t api_start = now_;
  const std::int64_t end = std::max(api_start + random_.uniform_int(2'000, 4'000),
                                    gpu_free_ + random_.uniform_int(3'000, 8'000));
  writer_.add(profiler::ApiCallRow{main_, local(api_start), next_activity_id_++, end - api_start,
                                   profiler::ApiKind::kRuntime, setup_.ids.stream_synchronize,
                                   next_correlation_++});
  ++rows_;
  now_ = end;
}

// The layer's parameters' gradients are ready when its backward op's last
// kernel (on the CPU: the op) has finished; reported last parameter first.
void RankTimeline::grads_ready(std::size_t layer, std::int64_t step) {
  const ModelLayer& module = setup_.model.layers[layer];
  const std::int64_t ready = setup_.gpu ? gpu_free_ : now_;
  for (int param = module.first_param + module.param_count - 1; param >= module.first_param;
       --param) {
    const auto index = static_cast<std::size_t>(param);
    writer_.add(profiler::GradReadyRow{step, param, local(ready),
                                       setup_.model.parameters[index].bytes, main_});
    ++rows_;
    const auto bucket = static_cast<std::size_t>(setup_.bucket_of_param[index]);
    if (setup_.buckets[bucket].first_param == param) bucket_ready_[bucket] = ready;
  }
}

void RankTimeline::add_allreduce(std::int64_t step, std::size_t bucket, std::int64_t start,
                                 std::int64_t end) {
  const Bucket& b = setup_.buckets[bucket];
  writer_.add(profiler::CollectiveRow{
      lane_, local(start), end - start, profiler::CollectiveOp::kAllReduce, b.bytes, "float32",
      static_cast<std::int64_t>(bucket), b.first_param, b.last_param, rank_, step});
  ++rows_;
}

void RankTimeline::finish_step(std::int64_t step, std::optional<std::int64_t> reduced,
                               bool overflow) {
  pause(3'000, 8'000);
  // DistributedDataParallel's backward returns once every bucket is reduced.
  if (reduced) now_ = std::max(now_, *reduced + random_.uniform_int(5'000, 20'000));
  open(setup_.ids.optimizer, Category::kPhase);
  optimizer(overflow, step);
  pause(1'000, 3'000);
  close_range();
  add_counters(step);
  pause(2'000, 5'000);
  close_range();  // the step
  const PendingRange& range = step_ranges_.front();
  writer_.add(profiler::StepRow{step, main_, local(range.start), local(range.end)});
  ++rows_;
  write_step_ranges();
  write_queue_samples(false);
  step_start_ = now_ + setup_.timing.iteration_gap_ns / 2 +
                random_.uniform_int(0, setup_.timing.iteration_gap_ns);
}

void RankTimeline::optimizer(bool overflow, std::int64_t step) {
  if (!setup_.gpu) {
    for (const double update_ns : setup_.update_ns) {
      pause(2'000, 6'000);
      run_op(setup_.ids.sgd_update, update_ns, nullptr);
    }
    return;
  }
  // The loss scaler unscales the gradients and reads back whether one was inf:
  // if so, the step's update is skipped and the scale halves.
  pause(2'000, 5'000);
  run_op(setup_.ids.amp_unscale, setup_.unscale_ns, &setup_.kernels.unscale);
  synchronize();
  if (overflow) {
    writer_.add(
        profiler::InstantRow{main_, local(now_), setup_.ids.grad_overflow, Category::kUser, step});
    ++rows_;
    loss_scale_value_ /= 2;
    steps_since_overflow_ = 0;
  } else {
    // One tiny update per parameter: launch-bound, the GPU waits for the host.
    for (std::size_t param = 0; param < setup_.update_ns.size(); ++param) {
      pause(2'000, 6'000);
      run_op(setup_.ids.sgd_update, setup_.update_ns[param], &setup_.kernels.updates[param]);
    }
    if (++steps_since_overflow_ % kLossScaleGrowthSteps == 0)
      loss_scale_value_ = std::min(kMaxLossScale, loss_scale_value_ * 2);
  }
  pause(2'000, 5'000);
  synchronize();  // the loss, read back for logging
}

void RankTimeline::add_counters(std::int64_t step) {
  const std::int64_t ts = local(now_);
  // A loss falling from ln(1000) towards 0.4, with noise; linear warm-up then
  // linear decay of the learning rate (exact arithmetic: no libm differences).
  const double loss = (0.4 + 6.5 / (1.0 + double(step) / 150.0)) * random_.jitter(0.03);
  const double lr =
      0.1 * std::min(1.0, double(step + 1) / 50.0) * std::max(0.01, 1.0 - double(step) / 20'000.0);
  writer_.add(profiler::CounterRow{loss_, ts, loss});
  writer_.add(profiler::CounterRow{lr_, ts, lr});
  rows_ += 2;
  if (!setup_.gpu) return;
  const double used = kMemoryCapacity * (step == 0 ? 0.55 : 0.6) * random_.jitter(0.01);
  writer_.add(profiler::CounterRow{loss_scale_, ts, loss_scale_value_});
  writer_.add(profiler::CounterRow{memory_used_, ts, double(static_cast<std::int64_t>(used))});
  writer_.add(profiler::CounterRow{memory_capacity_, ts, kMemoryCapacity});
  rows_ += 3;
}

// The main thread's ranges of the step, merged in begin order with the
// loader's that started meanwhile, take their ids.
void RankTimeline::write_step_ranges() {
  const std::vector<LoaderSimulation::Batch> batches = loader_->started_batches(now_);
  std::vector<std::int64_t> ids(step_ranges_.size());
  std::size_t batch = 0;
  for (std::size_t i = 0; i < step_ranges_.size(); ++i) {
    const PendingRange& range = step_ranges_[i];
    for (; batch < batches.size() && batches[batch].load_start < range.start; ++batch)
      write_loader_range(batches[batch]);
    ids[i] = next_range_id_++;
    std::optional<std::int64_t> parent;
    if (range.parent >= 0) parent = ids[static_cast<std::size_t>(range.parent)];
    writer_.add(profiler::RangeRow{main_, local(range.start), ids[i], range.end - range.start,
                                   range.name, range.category, range.depth, parent, range.arg});
  }
  for (; batch < batches.size(); ++batch) write_loader_range(batches[batch]);
  rows_ += static_cast<std::int64_t>(step_ranges_.size());
  step_ranges_.clear();
}

void RankTimeline::write_loader_ranges(std::int64_t before) {
  for (const LoaderSimulation::Batch& batch : loader_->started_batches(before))
    write_loader_range(batch);
}

// A batch's load_batch range (arg: the batch's index), as the trainer's loader writes it.
void RankTimeline::write_loader_range(const LoaderSimulation::Batch& batch) {
  writer_.add(profiler::RangeRow{loader_thread_, local(batch.load_start), next_range_id_++,
                                 batch.load_end - batch.load_start, setup_.ids.load_batch,
                                 Category::kOp, 0, std::nullopt, batch.index});
  ++rows_;
}

void RankTimeline::write_queue_samples(bool all) {
  for (const LoaderSimulation::Sample& sample : loader_->finished_samples(all, now_)) {
    const profiler::TrackId thread =
        sample.role == profiler::QueueRole::kProducer ? loader_thread_ : main_;
    writer_.add(profiler::QueueSampleRow{queue_, local(sample.ts), sample.depth, kQueueCapacity,
                                         sample.role, thread, sample.wait_ns});
    ++rows_;
  }
}

void RankTimeline::commit_if_due() {
  if (rows_ - rows_at_commit_ < kRowsPerTransaction) return;
  writer_.commit();
  writer_.begin();
  rows_at_commit_ = rows_;
}

void RankTimeline::close() {
  write_queue_samples(true);
  writer_.set_meta("synth.rows", std::to_string(rows_));
  writer_.set_meta("complete", "1");
  writer_.finalize();
}

}  // namespace parity::analyzer::synth
