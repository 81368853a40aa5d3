#include "parity/trainer/train/training_run.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <ostream>

#include "capture_window.hpp"
#include "parity/core/error.hpp"
#include "parity/core/log.hpp"
#include "parity/profiler/recorder.hpp"
#include "parity/trainer/backend/cpu_backend.hpp"
#include "step_loss_scaling.hpp"
#ifdef PARITY_HAVE_CUDA_BACKEND
#include "parity/trainer/backend/cuda_backend.hpp"
#endif
#include "parity/trainer/checkpoint/checkpoint_manager.hpp"
#include "parity/trainer/data/loader_factory.hpp"
#include "parity/trainer/debug/anomaly_detector.hpp"
#include "parity/trainer/debug/fixed_batch.hpp"
#include "parity/trainer/dist/allreduce_calibration.hpp"
#include "parity/trainer/dist/data_parallel.hpp"
#include "parity/trainer/dist/device_gradient_reducer.hpp"
#include "parity/trainer/dist/gradient_reducer.hpp"
#include "parity/trainer/dist/mpi_communicator.hpp"
#include "parity/trainer/dist/nccl_collectives.hpp"
#include "parity/trainer/loss/softmax_cross_entropy.hpp"
#include "parity/trainer/nn/resnet.hpp"
#include "parity/trainer/optim/lr_schedule.hpp"
#include "parity/trainer/optim/optimizer_choice.hpp"
#include "parity/trainer/optim/sgd.hpp"
#include "parity/trainer/train/foreign_weights.hpp"
#include "parity/trainer/train/progress_line.hpp"
#include "parity/trainer/train/state_tensors.hpp"

namespace parity::trainer {
namespace {

using Clock = std::chrono::steady_clock;
using profiler::Category;

// Our randomness is keyed by (seed, epoch, sample) and the step counters, so
// the seed is the whole random state a resumed run needs.
std::string rng_state(const TrainConfig& config) { return "seed=" + std::to_string(config.seed); }

// Said before anything is written (a trace, a checkpoint folder).
void check_device_target(const TrainConfig& config) {
  if (config.device_target != DeviceTarget::kGpu) return;
#ifdef PARITY_HAVE_CUDA_BACKEND
  const std::string unavailable = cuda_device_unavailable_reason();
  if (!unavailable.empty())
    throw Error("no usable GPU: " + unavailable, "config key 'device_target'",
                "train on a machine with an NVIDIA GPU and driver, or with device_target: CPU");
#else
  throw Error("this build of parity-train has no CUDA backend", "config key 'device_target'",
              "build with the CUDA toolkit and cuDNN (docs/gpu.md), or train with "
              "device_target: CPU");
#endif
}

// `device`: the GPU of a GPU run (a data-parallel rank's local rank).
std::unique_ptr<Backend> make_backend(const TrainConfig& config, [[maybe_unused]] int device = 0) {
#ifdef PARITY_HAVE_CUDA_BACKEND
  if (config.device_target == DeviceTarget::kGpu) {
    CudaBackendOptions options;
    options.device = device;
    options.deterministic = config.deterministic;
    options.tf32 = config.tf32;
    options.precision = config.precision;
    // MindSpore's O2 configs do this (a fixed scale of 1024, no drop); say what it risks.
    if (options.precision == Precision::kFloat16 &&
        config.loss_scale_manager == LossScaleKind::kFixed && !config.drop_overflow_update)
      log::warning(
          "float16 with a fixed loss scale and drop_overflow_update false: a step "
          "whose gradients overflow float16 updates the weights with Inf or NaN "
          "(loss_scale_manager: dynamic, or drop_overflow_update: true, skips it)");
    return make_cuda_backend(options);
  }
#endif
  return make_cpu_backend({static_cast<int>(config.threads), config.deterministic});
}

ResNetOptions model_options(const TrainConfig& config) {
  return {resnet_depth(config.net_name),
          config.class_num,
          config.zero_init_residual,
          {config.batch_size, 3, config.train_image_size, config.train_image_size},
          static_cast<std::uint64_t>(config.seed),
          config.stem,
          {}};
}

std::string format_number(double value, const char* format) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

EvalResult evaluate_model(Backend& backend, ResNet& model, Loader& loader, std::int64_t classes) {
  EvalResult result;
  std::int64_t top1 = 0, top5 = 0;
  double loss_sum = 0.0;
  loader.start_epoch(0);
  while (auto batch = loader.next()) {
    if (batch->n == 0) continue;
    const Tensor logits = model.forward(
        backend.from_host({batch->n, batch->c, batch->h, batch->w}, batch->images), Mode::kEval);
    const std::vector<float> host = backend.to_host(logits);
    const LossResult loss = softmax_cross_entropy(host, batch->labels, classes, {});
    top1 += loss.correct;
    top5 += count_top_k(host, batch->labels, classes, std::min<std::int64_t>(5, classes));
    loss_sum += loss.loss * double(batch->n);
    result.images += batch->n;
  }
  if (result.images > 0) {
    result.top1 = double(top1) / double(result.images);
    result.top5 = double(top5) / double(result.images);
    result.loss = loss_sum / double(result.images);
  }
  return result;
}

void print_eval(std::ostream& log, std::int64_t epoch, const EvalResult& r) {
  log << "epoch: " << epoch << " eval top-1: " << format_number(r.top1 * 100, "%.2f")
      << "% top-5: " << format_number(r.top5 * 100, "%.2f")
      << "% loss: " << format_number(r.loss, "%.4f") << " (" << r.images << " images)" << std::endl;
}

// A checkpoint's network settings must be this config's: said plainly
// rather than as the first tensor that does not fit.
void check_same_network(const TrainConfig& config, const TrainingCheckpoint& saved,
                        const std::string& where) {
  if (saved.config_yaml.empty()) return;
  const TrainConfig trained = parse_train_config(saved.config_yaml, where + " (its config)");
  const auto differ = [&](const std::string& key, std::string_view theirs_name,
                          std::string_view ours_name) {
    const std::string theirs(theirs_name), ours(ours_name);
    if (theirs != ours)
      throw Error("the checkpoint is of " + key + " " + theirs + ", the config asks for " + ours,
                  where,
                  "use the config the checkpoint was trained with, or --set " + key + "=" + theirs);
  };
  differ("net_name", name_of(trained.net_name), name_of(config.net_name));
  differ("class_num", std::to_string(trained.class_num), std::to_string(config.class_num));
  differ("stem",
         std::string(uses_small_image_stem(
                         {1, 3, trained.train_image_size, trained.train_image_size}, trained.stem)
                         ? "small"
                         : "imagenet"),
         std::string(uses_small_image_stem({1, 3, config.train_image_size, config.train_image_size},
                                           config.stem)
                         ? "small"
                         : "imagenet"));
}

struct PhaseNames {
  profiler::NameId step = profiler::intern("step");
  profiler::NameId data_wait = profiler::intern("data_wait");
  profiler::NameId forward = profiler::intern("forward");
  profiler::NameId backward = profiler::intern("backward");
  profiler::NameId allreduce_wait = profiler::intern("allreduce_wait");
  profiler::NameId optimizer = profiler::intern("optimizer");
  profiler::NameId loss = profiler::intern("loss");
  profiler::NameId lr = profiler::intern("lr");
};

// A range when tracing, nothing otherwise.
class MaybeScope {
 public:
  MaybeScope(profiler::Recorder* recorder, profiler::NameId name, Category category) {
    if (recorder) scope_.emplace(*recorder, name, category);
  }
  MaybeScope(profiler::Recorder* recorder, profiler::NameId name, Category category,
             std::int64_t arg) {
    if (recorder) scope_.emplace(*recorder, name, category, arg);
  }

 private:
  std::optional<profiler::Scope> scope_;
};

// "64,3,7,7", as docs/trace-schema.md has the parameter table's shapes.
std::string shape_text(const Dims& shape) {
  std::string text;
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
  return text;
}

void describe_trace(profiler::Recorder& recorder, const TrainConfig& config, Backend& backend,
                    const ModelState& state, const StepReducer* reducer) {
  recorder.set_meta("trainer.model", std::string(name_of(config.net_name)));
  if (reducer) {
    recorder.set_meta("trainer.allreduce_split",
                      AllreduceSplit::parse(config.allreduce_split, "").text());
    recorder.set_meta("trainer.allreduce_buckets", end_index_text(reducer->buckets()));
  }
  recorder.set_meta("trainer.backend", backend.describe());
  recorder.set_meta("trainer.batch_size", std::to_string(config.batch_size));
  recorder.set_meta("trainer.dataset", std::string(name_of(config.dataset)));
  for (const Parameter& p : state.parameters)
    recorder.add_parameter(
        {p.index, p.name, shape_text(p.shape), "float32", element_count(p.shape) * 4});
}

// "initial weights: w.pth (pytorch, names by identity)" and the loader's notes.
void print_foreign_weights(std::ostream& log, const std::string& label,
                           const std::filesystem::path& path, const ForeignWeights& weights) {
  log << label << ": " << path.string() << " (" << weights.format << ", names by " << weights.naming
      << ", " << weights.loaded << " tensors)" << std::endl;
  for (const std::string& note : weights.notes) log << "  " << note << std::endl;
}

// What data parallel cannot do, said before any rank starts training.
void check_data_parallel(const TrainConfig& config, const TrainOptions& options) {
  if (config.skip_corrupt)
    throw Error(
        "skip_corrupt cannot be used with several ranks: a rank that skips a step would leave "
        "the others waiting in its AllReduce",
        "config key 'skip_corrupt'",
        "repair or remove the unreadable images, or train on one rank");
  if (options.debug.dump)
    throw Error("--dump writes one folder for one process", "--dump",
                "dump on a single-process run");
}

// Where a rank other than 0 sends its log: nowhere.
std::ostream& discarding_stream() {
  struct NullBuffer : std::streambuf {
    int overflow(int c) override { return c; }
  };
  static NullBuffer buffer;
  static std::ostream stream(&buffer);
  return stream;
}

// The config a fixed batch implies: its batch size and image size.
TrainConfig with_fixed_batch(TrainConfig config, const std::optional<Batch>& batch) {
  if (batch) {
    config.batch_size = batch->n;
    config.train_image_size = batch->h;
  }
  return config;
}

}  // namespace

TrainSummary train(const TrainConfig& given_config, const TrainOptions& options,
                   std::ostream& rank_log) {
  require_trainable_optimizer(given_config.optimizer);  // a config naming Thor loads, trains not
  const DebugOptions& debug = options.debug;
  Communicator* const communicator = options.communicator;
  const int rank = communicator ? communicator->rank() : 0;
  const int world_size = communicator ? communicator->size() : 1;
  const bool data_parallel = world_size > 1;
  if (data_parallel) check_data_parallel(given_config, options);
  std::ostream& log = rank == 0 ? rank_log : discarding_stream();
  // Written so that NaN fails too.
  if (!(options.data_delay_ms >= 0 && std::isfinite(options.data_delay_ms)))
    throw Error("--data-delay-ms must be a non-negative number of milliseconds, got " +
                    format_number(options.data_delay_ms, "%g"),
                "--data-delay-ms", "give 0 for no delay");
  if (options.data_delay_ms > 0 && (debug.input_images || debug.input_labels))
    throw Error("--data-delay-ms delays the dataset loader, which --input-batch replaces",
                "--data-delay-ms", "leave out one of the two");
  std::optional<Batch> fixed_batch;
  if (debug.input_images || debug.input_labels) {
    if (!debug.input_images || !debug.input_labels)
      throw Error("a fixed batch needs both images and labels", "--input-batch",
                  "give --input-batch IMAGES.npy and --input-labels LABELS.npy");
    fixed_batch =
        read_fixed_batch(*debug.input_images, *debug.input_labels, given_config.class_num);
  }
  const TrainConfig config = with_fixed_batch(given_config, fixed_batch);
  if (options.trace_steps && !options.trace)
    throw Error("--trace-steps chooses the steps of a trace, and no trace is written",
                "--trace-steps " + options.trace_steps->text(), "add --trace RUN.db");
  check_device_target(config);
  if (debug.overflow_steps && config.loss_scale_manager == LossScaleKind::kFixed &&
      !config.drop_overflow_update)
    throw Error(
        "--plant-overflow plants what the loss scaler must catch, and this config checks "
        "no gradients (a fixed loss scale without drop_overflow_update)",
        "--plant-overflow " + debug.overflow_steps->text(),
        "add --set loss_scale_manager=dynamic or --set drop_overflow_update=true");
  std::unique_ptr<profiler::Recorder> recorder;
  if (options.trace) {
    profiler::RecorderOptions trace_options;
    trace_options.path = data_parallel ? rank_trace_path(*options.trace, rank) : *options.trace;
    trace_options.rank = rank;
    trace_options.world_size = world_size;
    trace_options.command_line = options.command_line;
    trace_options.config = to_yaml(config);
    trace_options.capture_at_start = !options.trace_steps;
    recorder = std::make_unique<profiler::Recorder>(std::move(trace_options));
    recorder->name_thread("train");
    if (options.trace_steps) recorder->set_meta("trace_steps", options.trace_steps->text());
  }
  const PhaseNames names;
  // Each GPU rank takes the GPU numbered by its rank on its machine.
  const int device = data_parallel ? launcher_local_rank(rank) : 0;
  auto backend = make_backend(config, device);
  backend->set_recorder(recorder.get());  // declared first, the recorder outlives the backend
  CaptureWindow window(recorder.get(), *backend);
  ObserverChain observers;
  Tracing tracing{recorder.get(), nullptr};
  LossOptions loss_options{config.use_label_smooth ? config.label_smooth_factor : 0.0,
                           config.label_smooth_convention, config.loss_scale};
  ResNetOptions network = model_options(config);
  BugPlanter bugs(debug.bugs);
  bugs.plant(network, loss_options);
  ResNet model(*backend, network, tracing);
  bugs.check_planted();
  NanPlanter* nan_planter = nullptr;
  if (debug.nan) {
    auto planter = std::make_unique<NanPlanter>(*backend, *debug.nan);
    nan_planter = planter.get();
    observers.add(std::move(planter));
  }
  TensorDumper* dumper = nullptr;
  if (debug.dump) {
    DumpOptions dump = *debug.dump;
    dump.model = name_of(config.net_name);
    auto writer = std::make_unique<TensorDumper>(*backend, dump);
    dumper = writer.get();
    observers.add(std::move(writer));
  }
  if (debug.detect_anomaly) observers.add(std::make_unique<AnomalyDetector>(*backend));
  if (!observers.empty()) tracing.observer = &observers;
  if (debug.init_weights)
    print_foreign_weights(
        log, "initial weights", *debug.init_weights,
        load_foreign_weights(*backend, model.state(), *debug.init_weights, debug.weights_map));
  bugs.transpose_weights(*backend, model.state());
  Sgd optimizer(*backend, model.state().parameters,
                {config.momentum, 0.0, config.nesterov, config.weight_decay});
  StepLossScaling scaling(config, *backend, recorder.get(), communicator, debug.overflow_steps);
  std::vector<ParamTensors*> parameter_tensors;
  for (const Parameter& p : model.state().parameters) parameter_tensors.push_back(p.tensors);
  std::unique_ptr<Loader> loader;
  if (!fixed_batch)
    loader = make_train_loader(config, world_size, rank, recorder.get(), options.data_delay_ms);
  std::unique_ptr<Loader> eval_loader;
  if (options.eval_each_epoch && rank == 0) eval_loader = make_eval_loader(config);
  // A fixed batch is a one-batch epoch.
  const std::int64_t steps_per_epoch = loader ? loader->batches_per_epoch() : 1;
  if (steps_per_epoch < 1)
    throw Error(
        "the training set has fewer images than one batch of " + std::to_string(config.batch_size),
        config.data_path, "lower batch_size");
  const std::vector<double> learning_rates =
      generate_learning_rates({config.lr_decay_mode, config.lr_init, config.lr_max, config.lr_end,
                               config.warmup_epochs, config.epoch_size, steps_per_epoch});
  const CheckpointManager checkpoints(config.checkpoint_path, config.checkpoint_prefix,
                                      config.keep_checkpoint_max);

  std::int64_t global_step = 0;
  if (options.resume) {
    const TrainingCheckpoint saved = read_checkpoint(*options.resume);
    if (saved.rng_state != rng_state(config))
      throw Error("the checkpoint was trained with " + saved.rng_state + ", this run has " +
                      rng_state(config),
                  options.resume->string(), "resume with the same seed (--set seed=...)");
    check_same_network(config, saved, options.resume->string());
    import_state(*backend, model.state(), &optimizer, saved.tensors, options.resume->string());
    scaling.restore(saved, options.resume->string());
    global_step = saved.step;
    log << "resumed from " << options.resume->string() << " at step " << global_step << std::endl;
  }
  std::unique_ptr<DeviceCollectives> device_collectives;  // GPU ranks'; outlives the reducer
  std::unique_ptr<StepReducer> reducer;
  if (data_parallel) {
    broadcast_state(*communicator, *backend, model.state());
    const std::vector<Parameter>& parameters = model.state().parameters;
    std::vector<GradientBucket> buckets = gradient_buckets(config.allreduce_split, parameters);
    std::string library = communicator->describe();
    if (config.device_target == DeviceTarget::kGpu) {
      device_collectives = make_nccl_collectives(*communicator, device, recorder != nullptr);
      reducer = std::make_unique<DeviceGradientReducer>(*device_collectives, *backend, parameters,
                                                        std::move(buckets), recorder.get());
      library = device_collectives->describe() + " (bootstrapped over " + library + ")";
    } else {
      reducer = std::make_unique<GradientReducer>(*communicator, *backend, parameters,
                                                  std::move(buckets), recorder.get());
    }
    tracing.gradients = reducer.get();
    log << "data parallel: " << library << ", " << reducer->buckets().size()
        << " gradient buckets (" << end_index_text(reducer->buckets()) << ")" << std::endl;
    if (recorder) {
      // The tuner needs the sweep whatever the capture window.
      const bool window_closed = !window.is_open();
      if (window_closed) window.open();
      const std::uint64_t bytes = gradient_bytes(model.state().parameters);
      const CalibrationSweep sweep =
          device_collectives ? calibrate_device_allreduce(*device_collectives, *recorder, bytes)
                             : calibrate_allreduce(*communicator, *recorder, bytes);
      if (window_closed) window.close();
      log << "AllReduce calibration for the tuner: " << sweep.messages << " messages in "
          << std::fixed << std::setprecision(2) << sweep.seconds << " s" << std::defaultfloat
          << std::endl;
    }
  }
  if (recorder) describe_trace(*recorder, config, *backend, model.state(), reducer.get());
  log << "training " << name_of(config.net_name) << " on " << name_of(config.dataset) << " with "
      << backend->describe() << ": " << config.epoch_size << " epochs of " << steps_per_epoch
      << " steps, batch " << config.batch_size << std::endl;

  const std::int64_t total_steps = config.epoch_size * steps_per_epoch;
  const std::int64_t last_step =
      options.max_steps > 0 ? std::min(total_steps, global_step + options.max_steps) : total_steps;
  const Dims input_dims{config.batch_size, 3, config.train_image_size, config.train_image_size};
  TrainSummary summary;
  std::optional<ProgressLine> progress;  // rank 0's only
  if (rank == 0) progress.emplace(last_step);
  if (options.time_limit_minutes > 0)
    log << "time limit: " << options.time_limit_minutes << " minutes" << std::endl;
  const auto run_start = Clock::now();
  std::int64_t images = 0;
  const auto out_of_time = [&] {
    return options.time_limit_minutes > 0 &&
           std::chrono::duration<double>(Clock::now() - run_start).count() >
               options.time_limit_minutes * 60.0;
  };
  std::int64_t stop_step = last_step;

  const auto save = [&](std::int64_t epoch, std::int64_t step_in_epoch) {
    TrainingCheckpoint checkpoint;
    checkpoint.tensors = export_state(*backend, model.state(), &optimizer);
    checkpoint.epoch = epoch + 1;
    checkpoint.step = global_step;
    checkpoint.step_in_epoch = step_in_epoch;
    checkpoint.rng_state = rng_state(config);
    checkpoint.config_yaml = to_yaml(config);
    scaling.save(checkpoint);
    summary.last_checkpoint = checkpoints.save(checkpoint);
  };

  while (global_step < stop_step) {
    const std::int64_t epoch = global_step / steps_per_epoch;
    const auto epoch_start = Clock::now();
    const std::int64_t first = global_step % steps_per_epoch;
    if (loader) loader->start_epoch(epoch, first);
    double loss = 0.0;
    std::int64_t step_in_epoch = first;
    for (; step_in_epoch < steps_per_epoch && global_step < stop_step; ++step_in_epoch) {
      if (recorder && options.trace_steps) {
        const bool wanted = options.trace_steps->contains(global_step);
        if (wanted) window.open();
        if (!wanted) window.close();
      }
      MaybeScope step_scope(recorder.get(), names.step, Category::kStep, global_step);
      std::optional<Batch> batch;
      {
        MaybeScope phase(recorder.get(), names.data_wait, Category::kPhase);
        batch = loader ? loader->next() : fixed_batch;
      }
      if (!batch) throw Error("the loader ended its epoch early", "train");
      const double lr = learning_rates[static_cast<std::size_t>(global_step)];
      ++global_step;
      if (batch->n != config.batch_size) {
        // Unreadable images were left out (skip_corrupt): no update this step.
        ++summary.skipped_batches;
        continue;
      }
      BackendLoss result;
      if (tracing.observer) tracing.observer->begin_step(global_step - 1);
      {
        MaybeScope phase(recorder.get(), names.forward, Category::kPhase);
        const Tensor input = backend->from_host(input_dims, batch->images);
        if (tracing.observer) tracing.observer->input(input);
        const Tensor logits = model.forward(input, Mode::kTrain);
        loss_options.scale = scaling.scale();
        result = backend->cross_entropy(logits, batch->labels, loss_options);
        if (tracing.observer) tracing.observer->loss(result.loss);
      }
      {
        MaybeScope phase(recorder.get(), names.backward, Category::kPhase);
        model.backward(result.grad_logits);
        if (reducer) reducer->end_backward();
      }
      if (reducer) {
        // The AllReduce time backward did not hide: the exposed communication.
        MaybeScope phase(recorder.get(), names.allreduce_wait, Category::kPhase);
        reducer->finish_step();
      }
      bool applied = false;
      {
        MaybeScope phase(recorder.get(), names.optimizer, Category::kPhase);
        const double scale = scaling.scale();
        // A step whose gradients overflowed is dropped whole (the loss scaler's rule).
        applied = scaling.finish_step(global_step - 1, parameter_tensors);
        if (applied) {
          if (tracing.observer) tracing.observer->before_update(model.state());
          optimizer.step(lr, scale);
          if (tracing.observer) tracing.observer->after_update(model.state());
        }
      }
      // A dropped step's loss may be the overflow itself: neither an error nor a sample.
      if (applied || std::isfinite(result.loss)) {
        loss = result.loss;
        if (!std::isfinite(loss))
          throw Error("the loss became " + format_number(loss, "%g") + " at step " +
                          std::to_string(global_step),
                      "train", "lower lr_max, or check the data");
        if (recorder) recorder->counter(names.loss, loss);
      }
      if (recorder) recorder->counter(names.lr, lr);
      images += batch->n;
      ++summary.steps;
      // Ranks stop together: one whose clock passed the limit stops them all.
      const bool late = out_of_time();
      if (communicator && options.time_limit_minutes > 0 ? communicator->any(late) : late)
        stop_step = global_step;
      if (progress) progress->update(epoch + 1, global_step, loss, lr, images);
      if (options.log_every > 0 && (step_in_epoch + 1) % options.log_every == 0) {
        if (progress) progress->clear();
        log << "epoch: " << epoch + 1 << " step: " << step_in_epoch + 1 << ", loss is "
            << format_number(float(loss), "%.9g") << std::endl;
      }
    }
    summary.last_loss = loss;
    const bool epoch_done = step_in_epoch == steps_per_epoch;
    if (progress) progress->clear();
    if (epoch_done && options.log_every == 0)
      log << "epoch: " << epoch + 1 << " step: " << steps_per_epoch << ", loss is "
          << format_number(float(loss), "%.9g") << std::endl;
    const double epoch_ms =
        std::chrono::duration<double, std::milli>(Clock::now() - epoch_start).count();
    log << "epoch time: " << format_number(epoch_ms, "%.3f") << " ms, per step time: "
        << format_number(epoch_ms / double(std::max<std::int64_t>(1, step_in_epoch - first)),
                         "%.3f")
        << " ms" << std::endl;
    if (epoch_done && eval_loader)
      print_eval(log, epoch + 1, evaluate_model(*backend, model, *eval_loader, config.class_num));
    const bool scheduled = epoch_done && (epoch + 1) % config.save_checkpoint_epochs == 0;
    if (config.save_checkpoint && rank == 0 && (scheduled || global_step == stop_step))
      save(epoch, step_in_epoch);
  }

  const double seconds = std::chrono::duration<double>(Clock::now() - run_start).count();
  if (nan_planter && !nan_planter->planted() && global_step > debug.nan->step)
    throw Error("no layer named '" + debug.nan->layer + "' produced an output at step " +
                    std::to_string(debug.nan->step),
                "--plant-nan", "use a module's torchvision name, e.g. layer3.1.conv2");
  if (dumper) {
    summary.dumped_tensors = dumper->records();
    summary.dumped_bytes = dumper->bytes_written();
    log << "dumped " << summary.dumped_tensors << " tensors ("
        << format_number(double(summary.dumped_bytes) / 1e6, "%.1f") << " MB) to "
        << debug.dump->dir.string() << std::endl;
  }
  summary.global_step = global_step;
  summary.overflow_steps = scaling.state().overflow_steps;
  summary.overflow_skips = scaling.state().skipped_steps;
  summary.loss_scale = scaling.scale();
  summary.images_per_second = seconds > 0 ? double(images) / seconds : 0.0;
  if (summary.skipped_batches > 0)
    log::warning(std::to_string(summary.skipped_batches) +
                 " steps were skipped: their batches lost unreadable images (skip_corrupt)");
  log << "trained " << summary.steps << " steps in " << format_duration(seconds) << ", "
      << format_number(summary.images_per_second, "%.1f") << " images/s" << std::endl;
  if (const std::string scale = scaling.summary(); !scale.empty()) log << scale << std::endl;
  if (summary.last_checkpoint)
    log << "checkpoint: " << summary.last_checkpoint->string() << std::endl;
  return summary;
}

EvalResult evaluate_checkpoint(const TrainConfig& config, const std::filesystem::path& checkpoint,
                               std::ostream& log, const std::string& map) {
  check_device_target(config);
  auto backend = make_backend(config);
  Tracing tracing;
  ResNet model(*backend, model_options(config), tracing);
  std::string origin;  // what the weights are, for the log
  if (is_training_checkpoint(checkpoint)) {
    const TrainingCheckpoint saved = read_checkpoint(checkpoint);
    check_same_network(config, saved, checkpoint.string());
    import_state(*backend, model.state(), nullptr, saved.tensors, checkpoint.string());
    origin = "epoch " + std::to_string(saved.epoch) + ", step " + std::to_string(saved.step);
  } else {
    const ForeignWeights weights = load_foreign_weights(*backend, model.state(), checkpoint, map);
    print_foreign_weights(log, "weights", checkpoint, weights);
    origin = weights.format + " weights";
  }
  auto loader = make_eval_loader(config);
  const auto start = Clock::now();
  const EvalResult result = evaluate_model(*backend, model, *loader, config.class_num);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  log << "evaluated " << checkpoint.string() << " (" << origin << ") on " << result.images
      << " images in " << format_duration(seconds) << std::endl;
  log << "top-1: " << format_number(result.top1 * 100, "%.2f")
      << "%  top-5: " << format_number(result.top5 * 100, "%.2f")
      << "%  loss: " << format_number(result.loss, "%.4f") << std::endl;
  return result;
}

}  // namespace parity::trainer
