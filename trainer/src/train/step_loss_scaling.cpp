#include "step_loss_scaling.hpp"

#include <cstdio>
#include <limits>
#include <map>
#include <stdexcept>
#include <type_traits>

#include "parity/core/error.hpp"

namespace parity::trainer {
namespace {

LossScaleOptions scaler_options(const TrainConfig& config) {
  return {config.loss_scale_manager, config.loss_scale, config.drop_overflow_update,
          config.loss_scale_factor, config.loss_scale_window};
}

// Checkpoint keys, after "parity.extra.".
constexpr const char* kScaleKey = "loss_scale";
constexpr const char* kCleanKey = "loss_scale_clean_steps";
constexpr const char* kOverflowKey = "loss_scale_overflow_steps";
constexpr const char* kSkippedKey = "loss_scale_skipped_steps";

std::string exact_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

template <class T>
T read_number(const std::map<std::string, std::string>& extra, const char* key,
              const std::string& where) {
  const std::string& text = extra.at(key);
  try {
    std::size_t used = 0;
    T value{};
    if constexpr (std::is_integral_v<T>)
      value = std::stoll(text, &used);
    else
      value = std::stod(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  throw Error("the checkpoint's " + std::string(key) + " is '" + text + "', not a number", where,
              "resume from another checkpoint");
}

}  // namespace

StepLossScaling::StepLossScaling(const TrainConfig& config, Backend& backend,
                                 profiler::Recorder* recorder, Communicator* communicator,
                                 std::optional<StepSelection> planted_overflows)
    : scaler_(scaler_options(config)),
      kind_(config.loss_scale_manager),
      backend_(backend),
      recorder_(recorder),
      communicator_(communicator),
      planted_(std::move(planted_overflows)),
      scale_name_(profiler::intern("loss_scale")),
      overflow_name_(profiler::intern("overflow_steps")),
      skipped_name_(profiler::intern("skipped_steps")),
      instant_name_(profiler::intern("grad_overflow")) {}

bool StepLossScaling::in_use() const {
  return scaler_.checks_overflow() || scaler_.scale() != 1.0 || planted_;
}

bool StepLossScaling::finish_step(std::int64_t step, std::span<ParamTensors* const> params) {
  const double scale = scaler_.scale();
  if (planted_ && planted_->contains(step) && !params.empty() &&
      (!communicator_ || communicator_->rank() == 0))
    backend_.fill(params.back()->grad, std::numeric_limits<float>::infinity());
  bool overflow = false;
  if (scaler_.checks_overflow()) {
    overflow = !backend_.gradients_finite(params);
    // The reduced gradients are alike on every rank; agreeing costs one flag.
    if (communicator_) overflow = communicator_->any(overflow);
  }
  if (overflow && kind_ == LossScaleKind::kDynamic && scale <= 1.0)
    throw Error("the gradients overflow at loss scale 1 (step " + std::to_string(step) +
                    "): no smaller scale can help, the training diverged",
                "train", "lower lr_max, or find the first non-finite layer with --detect-anomaly");
  const bool apply = scaler_.finish_step(overflow);
  if (recorder_ && in_use()) {
    recorder_->counter(scale_name_, scale);
    if (overflow) recorder_->instant(instant_name_, profiler::Category::kUser, step);
    if (scaler_.checks_overflow()) {
      recorder_->counter(overflow_name_, double(scaler_.state().overflow_steps));
      recorder_->counter(skipped_name_, double(scaler_.state().skipped_steps));
    }
  }
  return apply;
}

void StepLossScaling::save(TrainingCheckpoint& checkpoint) const {
  const LossScaleState& s = scaler_.state();
  checkpoint.extra[kScaleKey] = exact_text(s.scale);
  checkpoint.extra[kCleanKey] = std::to_string(s.clean_steps);
  checkpoint.extra[kOverflowKey] = std::to_string(s.overflow_steps);
  checkpoint.extra[kSkippedKey] = std::to_string(s.skipped_steps);
}

void StepLossScaling::restore(const TrainingCheckpoint& checkpoint, const std::string& where) {
  const auto& extra = checkpoint.extra;
  // Checkpoints from before loss scaling have none of it: the config's start stands.
  if (!extra.count(kScaleKey)) return;
  for (const char* key : {kCleanKey, kOverflowKey, kSkippedKey})
    if (!extra.count(key))
      throw Error("the checkpoint has a loss scale but no " + std::string(key), where,
                  "resume from another checkpoint");
  scaler_.restore({read_number<double>(extra, kScaleKey, where),
                   read_number<std::int64_t>(extra, kCleanKey, where),
                   read_number<std::int64_t>(extra, kOverflowKey, where),
                   read_number<std::int64_t>(extra, kSkippedKey, where)},
                  where);
}

std::string StepLossScaling::summary() const {
  if (!in_use()) return "";
  const LossScaleState& s = scaler_.state();
  std::string text = std::string(name_of(kind_)) + " loss scale " + exact_text(s.scale);
  if (!scaler_.checks_overflow()) return text + " (overflow not checked)";
  return text + ": " + std::to_string(s.overflow_steps) + " steps overflowed, " +
         std::to_string(s.skipped_steps) + " skipped";
}

}  // namespace parity::trainer
