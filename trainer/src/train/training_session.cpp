// A training run's setup and summary: the steps of TrainingSession::run()
// before and after the loop (training_session.hpp).
#include "training_session.hpp"

#include <streambuf>

#include "backend_choice.hpp"
#include "checkpoint_match.hpp"
#include "dump_settings.hpp"
#include "log_numbers.hpp"
#include "network_options.hpp"
#include "parity/core/error.hpp"
#include "parity/core/log.hpp"
#include "parity/trainer/data/loader_factory.hpp"
#include "parity/trainer/debug/anomaly_detector.hpp"
#include "parity/trainer/dist/mpi_communicator.hpp"
#include "parity/trainer/optim/lr_schedule.hpp"
#include "parity/trainer/optim/thor_schedule.hpp"
#include "parity/trainer/train/foreign_weights.hpp"
#include "parity/trainer/train/state_tensors.hpp"
#include "run_request.hpp"

namespace parity::trainer {
namespace {

// Where a rank other than 0 sends its log: nowhere.
std::ostream& discarding_stream() {
  struct NullBuffer : std::streambuf {
    int overflow(int c) override { return c; }
  };
  static NullBuffer buffer;
  static std::ostream stream(&buffer);
  return stream;
}

}  // namespace

TrainingSession::TrainingSession(const TrainConfig& config, const TrainOptions& options,
                                 std::ostream& rank_log)
    : options_(options),
      debug_(options.debug),
      communicator_(options.communicator),
      rank_(communicator_ ? communicator_->rank() : 0),
      world_size_(communicator_ ? communicator_->size() : 1),
      log_(rank_ == 0 ? rank_log : discarding_stream()),
      config_(config) {}

TrainSummary TrainingSession::run() {
  check_request();
  open_trace();
  build_backend();
  build_model();
  build_optimizer();
  open_data();
  build_thor();
  add_observers();  // after open_data: a dump's header records the learning rates
  resume();
  if (world_size_ > 1) join_ranks();
  announce();
  run_steps();
  return sum_up();
}

void TrainingSession::check_request() {
  CheckedRequest request = parity::trainer::check_request(config_, options_, world_size_);
  config_ = std::move(request.config);
  fixed_batch_ = std::move(request.fixed_batch);
}

void TrainingSession::open_trace() {
  recorder_ = parity::trainer::open_trace(config_, options_, rank_, world_size_);
  names_.emplace();
}

void TrainingSession::build_backend() {
  // Each GPU rank takes the GPU numbered by its rank on its machine.
  device_ = world_size_ > 1 ? launcher_local_rank(rank_) : 0;
  backend_ = make_backend(config_, device_);
  backend_->set_recorder(recorder_.get());
  window_.emplace(recorder_.get(), *backend_);
  tracing_ = {recorder_.get(), nullptr};
}

// The network, with the debugging options' planted bugs, observers and
// initial weights.
void TrainingSession::build_model() {
  loss_options_ = {config_.use_label_smooth ? config_.label_smooth_factor : 0.0,
                   config_.label_smooth_convention, config_.loss_scale};
  ResNetOptions network = network_options(config_);
  BugPlanter bugs(debug_.bugs);
  bugs.plant(network, loss_options_);
  model_.emplace(*backend_, network, tracing_);
  bugs.check_planted();
  if (debug_.init_weights)
    print_foreign_weights(
        log_, "initial weights", *debug_.init_weights,
        load_foreign_weights(*backend_, model_->state(), *debug_.init_weights, debug_.weights_map));
  bugs.transpose_weights(*backend_, model_->state());
}

void TrainingSession::add_observers() {
  if (debug_.nan) {
    auto planter = std::make_unique<NanPlanter>(*backend_, *debug_.nan);
    nan_planter_ = planter.get();
    observers_.add(std::move(planter));
  }
  if (debug_.dump) {
    DumpOptions dump = *debug_.dump;
    dump.model = name_of(config_.net_name);
    dump.settings = dump_settings(config_, learning_rates_, backend_->describe());
    dump.float64 = config_.precision == Precision::kFloat64;
    auto writer = std::make_unique<TensorDumper>(*backend_, dump, model_->state());
    dumper_ = writer.get();
    observers_.add(std::move(writer));
  }
  if (debug_.probe) {
    GradProbeOptions probe = *debug_.probe;
    probe.model = name_of(config_.net_name);
    auto signs = std::make_unique<GradSignProbe>(*backend_, probe, model_->state());
    probe_ = signs.get();
    observers_.add(std::move(signs));
  }
  if (debug_.detect_anomaly) observers_.add(std::make_unique<AnomalyDetector>(*backend_));
  if (!observers_.empty()) tracing_.observer = &observers_;
}

void TrainingSession::build_optimizer() {
  std::vector<Parameter> parameters = model_->state().parameters;
  // MindSpore's THOR decays every parameter (nn.thor's default decay_filter).
  if (config_.optimizer == OptimizerKind::kThor)
    for (Parameter& p : parameters) p.weight_decay = true;
  optimizer_.emplace(*backend_, std::move(parameters),
                     SgdOptions{config_.momentum, 0.0, config_.nesterov, config_.weight_decay});
  scaling_.emplace(config_, *backend_, recorder_.get(), communicator_, debug_.overflow_steps);
  for (const Parameter& p : model_->state().parameters) parameter_tensors_.push_back(p.tensors);
}

// The loaders, the learning rate of every step and the checkpoint folder.
void TrainingSession::open_data() {
  if (!fixed_batch_)
    loader_ =
        make_train_loader(config_, world_size_, rank_, recorder_.get(), options_.data_delay_ms);
  if (options_.eval_each_epoch && rank_ == 0) eval_loader_ = make_eval_loader(config_);
  if (loader_) steps_per_epoch_ = loader_->batches_per_epoch();
  if (steps_per_epoch_ < 1)
    throw Error(
        "the training set has fewer images than one batch of " + std::to_string(config_.batch_size),
        config_.data_path, "lower batch_size");
  if (config_.optimizer == OptimizerKind::kThor)
    learning_rates_ = thor_learning_rates(thor_schedule(config_, steps_per_epoch_),
                                          config_.epoch_size * steps_per_epoch_);
  else
    learning_rates_ = generate_learning_rates({config_.lr_decay_mode, config_.lr_init,
                                               config_.lr_max, config_.lr_end, config_.warmup_epochs,
                                               config_.epoch_size, steps_per_epoch_});
  checkpoints_.emplace(config_.checkpoint_path, config_.checkpoint_prefix,
                       config_.keep_checkpoint_max);
}

// THOR's preconditioner, with the damping of every step, watching the
// weighted layers through the model's tracing.
void TrainingSession::build_thor() {
  if (config_.optimizer != OptimizerKind::kThor) return;
  ThorOptions options;
  options.frequency = config_.frequency;
  options.split_indices = config_.split_indices;
  options.average_statistics = config_.thor_allreduce == ThorAllReduce::kStatistics;
  options.dampings = thor_dampings(thor_schedule(config_, steps_per_epoch_),
                                   config_.epoch_size * steps_per_epoch_);
  thor_ = std::make_unique<ThorPreconditioner>(*backend_, model_->state(), std::move(options),
                                               communicator_, recorder_.get());
  tracing_.curvature = thor_.get();
}

void TrainingSession::resume() {
  if (!options_.resume) return;
  const std::string where = options_.resume->string();
  const TrainingCheckpoint saved = read_checkpoint(*options_.resume);
  check_resumable(config_, saved, where);
  import_state(*backend_, model_->state(), &*optimizer_, saved.tensors, where);
  if (thor_) thor_->import_state(saved.tensors, where);
  scaling_->restore(saved, where);
  global_step_ = saved.step;
  log_ << "resumed from " << where << " at step " << global_step_ << std::endl;
}

void TrainingSession::join_ranks() {
  ranks_ = parity::trainer::join_ranks(config_, *communicator_, *backend_, model_->state(), device_,
                                       recorder_.get(), *window_, log_);
  tracing_.gradients = ranks_.reducer.get();
}

void TrainingSession::announce() {
  if (recorder_)
    describe_trace(*recorder_, config_, *backend_, model_->state(), ranks_.reducer.get());
  log_ << "training " << name_of(config_.net_name) << " on " << name_of(config_.dataset) << " with "
       << backend_->describe() << ": " << config_.epoch_size << " epochs of " << steps_per_epoch_
       << " steps, batch " << config_.batch_size << std::endl;
}

void TrainingSession::save_checkpoint(const Epoch& epoch) {
  TrainingCheckpoint checkpoint;
  checkpoint.tensors = export_state(*backend_, model_->state(), &*optimizer_);
  if (thor_)
    for (importers::NamedTensor& inverse : thor_->export_state())
      checkpoint.tensors.push_back(std::move(inverse));
  checkpoint.epoch = epoch.index + 1;
  checkpoint.step = global_step_;
  checkpoint.step_in_epoch = epoch.step;
  checkpoint.rng_state = rng_state(config_);
  checkpoint.config_yaml = to_yaml(config_);
  scaling_->save(checkpoint);
  summary_.last_checkpoint = checkpoints_->save(checkpoint);
}

// The checks only the end can make, the summary and its log lines.
TrainSummary TrainingSession::sum_up() {
  const double seconds = std::chrono::duration<double>(Clock::now() - run_start_).count();
  if (nan_planter_ && !nan_planter_->planted() && global_step_ > debug_.nan->step)
    throw Error("no layer named '" + debug_.nan->layer + "' produced an output at step " +
                    std::to_string(debug_.nan->step),
                "--plant-nan", "use a module's torchvision name, e.g. layer3.1.conv2");
  if (dumper_) {
    summary_.dumped_tensors = dumper_->records();
    summary_.dumped_bytes = dumper_->bytes_written();
    log_ << "dumped " << summary_.dumped_tensors << " tensors ("
         << format_number(double(summary_.dumped_bytes) / 1e6, "%.1f") << " MB) to "
         << debug_.dump->dir.string() << std::endl;
  }
  if (probe_) {
    summary_.probed_steps = probe_->steps();
    log_ << "probed the gradient signs of " << probe_->parameters() << " parameters in "
         << summary_.probed_steps << " steps to " << debug_.probe->dir.string() << std::endl;
  }
  summary_.global_step = global_step_;
  summary_.overflow_steps = scaling_->state().overflow_steps;
  summary_.overflow_skips = scaling_->state().skipped_steps;
  summary_.loss_scale = scaling_->scale();
  summary_.images_per_second = seconds > 0 ? double(images_) / seconds : 0.0;
  if (summary_.skipped_batches > 0)
    log::warning(std::to_string(summary_.skipped_batches) +
                 " steps were skipped: their batches lost unreadable images (skip_corrupt)");
  log_ << "trained " << summary_.steps << " steps in " << format_duration(seconds) << ", "
       << format_number(summary_.images_per_second, "%.1f") << " images/s" << std::endl;
  if (const std::string scale = scaling_->summary(); !scale.empty()) log_ << scale << std::endl;
  if (summary_.last_checkpoint)
    log_ << "checkpoint: " << summary_.last_checkpoint->string() << std::endl;
  return summary_;
}

}  // namespace parity::trainer
