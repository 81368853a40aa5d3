// A training run's loop: epochs, and in each step the data wait, forward and
// loss, backward (and the AllReduce wait), the optimizer, the log lines, the
// end of an epoch (evaluation, checkpoint). The rest of TrainingSession is in
// training_session.cpp.
#include <cmath>

#include "log_numbers.hpp"
#include "parity/core/error.hpp"
#include "run_evaluation.hpp"
#include "training_session.hpp"

namespace parity::trainer {

using profiler::Category;

void TrainingSession::run_steps() {
  const std::int64_t total_steps = config_.epoch_size * steps_per_epoch_;
  stop_step_ = options_.max_steps > 0 ? std::min(total_steps, global_step_ + options_.max_steps)
                                      : total_steps;
  input_dims_ = {config_.batch_size, 3, config_.train_image_size, config_.train_image_size};
  if (rank_ == 0) progress_.emplace(stop_step_);
  if (options_.time_limit_minutes > 0)
    log_ << "time limit: " << options_.time_limit_minutes << " minutes" << std::endl;
  run_start_ = Clock::now();
  while (global_step_ < stop_step_) run_epoch();
}

void TrainingSession::run_epoch() {
  Epoch epoch;
  epoch.index = global_step_ / steps_per_epoch_;
  epoch.start = Clock::now();
  epoch.first = global_step_ % steps_per_epoch_;
  if (loader_) loader_->start_epoch(epoch.index, epoch.first);
  for (epoch.step = epoch.first; epoch.step < steps_per_epoch_ && global_step_ < stop_step_;
       ++epoch.step)
    run_step(epoch);
  end_epoch(epoch);
}

void TrainingSession::run_step(Epoch& epoch) {
  if (recorder_ && options_.trace_steps) follow_trace_steps();
  MaybeScope step_scope(recorder_.get(), names_->step, Category::kStep, global_step_);
  const Batch batch = next_batch();
  const double lr = learning_rates_[static_cast<std::size_t>(global_step_)];
  ++global_step_;
  if (batch.n != config_.batch_size) {
    // Unreadable images were left out (skip_corrupt): no update this step.
    ++summary_.skipped_batches;
    return;
  }
  if (tracing_.observer) tracing_.observer->begin_step(global_step_ - 1);
  if (thor_) thor_->begin_step(global_step_ - 1);
  const BackendLoss result = forward(batch);
  backward(result);
  const bool applied = update(lr);
  record_step(epoch, result, applied, lr);
  images_ += batch.n;
  ++summary_.steps;
  stop_when_out_of_time();
  report_step(epoch, lr);
}

// --trace-steps: the capture window is open in the chosen steps only.
void TrainingSession::follow_trace_steps() {
  if (options_.trace_steps->contains(global_step_))
    window_->open();
  else
    window_->close();
}

Batch TrainingSession::next_batch() {
  std::optional<Batch> batch;
  {
    MaybeScope phase(recorder_.get(), names_->data_wait, Category::kPhase);
    batch = loader_ ? loader_->next() : fixed_batch_;
  }
  if (!batch) throw Error("the loader ended its epoch early", "train");
  return std::move(*batch);
}

BackendLoss TrainingSession::forward(const Batch& batch) {
  MaybeScope phase(recorder_.get(), names_->forward, Category::kPhase);
  const Tensor input = backend_->from_host(input_dims_, batch.images);
  if (tracing_.observer) tracing_.observer->input(input);
  const Tensor logits = model_->forward(input, Mode::kTrain);
  loss_options_.scale = scaling_->scale();
  BackendLoss result = backend_->cross_entropy(logits, batch.labels, loss_options_);
  if (tracing_.observer) tracing_.observer->loss(result.loss);
  return result;
}

void TrainingSession::backward(const BackendLoss& result) {
  {
    MaybeScope phase(recorder_.get(), names_->backward, Category::kPhase);
    model_->backward(result.grad_logits);
    if (ranks_.reducer) ranks_.reducer->end_backward();
  }
  if (ranks_.reducer) {
    // The AllReduce time backward did not hide: the exposed communication.
    MaybeScope phase(recorder_.get(), names_->allreduce_wait, Category::kPhase);
    ranks_.reducer->finish_step();
  }
  if (tracing_.observer) tracing_.observer->gradients_ready(model_->state());
}

// Whether the step's update was applied.
bool TrainingSession::update(double lr) {
  MaybeScope phase(recorder_.get(), names_->optimizer, Category::kPhase);
  const double scale = scaling_->scale();
  // A step whose gradients overflowed is dropped whole (the loss scaler's rule).
  const bool applied = scaling_->finish_step(global_step_ - 1, parameter_tensors_);
  if (applied) {
    if (tracing_.observer) tracing_.observer->before_update(model_->state());
    if (thor_) thor_->precondition(global_step_ - 1, scale);
    optimizer_->step(lr, scale);
    if (tracing_.observer) tracing_.observer->after_update(model_->state());
  }
  return applied;
}

void TrainingSession::record_step(Epoch& epoch, const BackendLoss& result, bool applied,
                                  double lr) {
  // A dropped step's loss may be the overflow itself: neither an error nor a sample.
  if (applied || std::isfinite(result.loss)) {
    epoch.loss = result.loss;
    if (!std::isfinite(epoch.loss))
      throw Error("the loss became " + format_number(epoch.loss, "%g") + " at step " +
                      std::to_string(global_step_),
                  "train", "lower lr_max, or check the data");
    if (recorder_) recorder_->counter(names_->loss, epoch.loss);
  }
  if (recorder_) recorder_->counter(names_->lr, lr);
}

// Ranks stop together: one whose clock passed the limit stops them all.
void TrainingSession::stop_when_out_of_time() {
  const bool late = options_.time_limit_minutes > 0 &&
                    std::chrono::duration<double>(Clock::now() - run_start_).count() >
                        options_.time_limit_minutes * 60.0;
  if (communicator_ && options_.time_limit_minutes > 0 ? communicator_->any(late) : late)
    stop_step_ = global_step_;
}

void TrainingSession::report_step(const Epoch& epoch, double lr) {
  if (progress_) progress_->update(epoch.index + 1, global_step_, epoch.loss, lr, images_);
  if (options_.log_every > 0 && (epoch.step + 1) % options_.log_every == 0) {
    if (progress_) progress_->clear();
    log_ << "epoch: " << epoch.index + 1 << " step: " << epoch.step + 1 << ", loss is "
         << format_number(float(epoch.loss), "%.9g") << std::endl;
  }
}

// The epoch's log lines, its evaluation and its checkpoint.
void TrainingSession::end_epoch(const Epoch& epoch) {
  summary_.last_loss = epoch.loss;
  const bool epoch_done = epoch.step == steps_per_epoch_;
  if (progress_) progress_->clear();
  if (epoch_done && options_.log_every == 0)
    log_ << "epoch: " << epoch.index + 1 << " step: " << steps_per_epoch_ << ", loss is "
         << format_number(float(epoch.loss), "%.9g") << std::endl;
  const double epoch_ms =
      std::chrono::duration<double, std::milli>(Clock::now() - epoch.start).count();
  log_ << "epoch time: " << format_number(epoch_ms, "%.3f") << " ms, per step time: "
       << format_number(epoch_ms / double(std::max<std::int64_t>(1, epoch.step - epoch.first)),
                        "%.3f")
       << " ms" << std::endl;
  if (epoch_done && eval_loader_)
    print_eval(log_, epoch.index + 1,
               evaluate_model(*backend_, *model_, *eval_loader_, config_.class_num));
  const bool scheduled = epoch_done && (epoch.index + 1) % config_.save_checkpoint_epochs == 0;
  if (config_.save_checkpoint && rank_ == 0 && (scheduled || global_step_ == stop_step_))
    save_checkpoint(epoch);
}

}  // namespace parity::trainer
