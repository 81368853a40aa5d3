// Loss scaling, MindSpore's two managers: the loss is multiplied by the scale
// before backward (so small fp16 gradients do not flush to zero) and the
// optimizer divides it out again.
//   fixed (FixedLossScaleManager): the scale never changes; with
//     drop_overflow_update, a step whose gradients hold an Inf or NaN is not
//     applied.
//   dynamic (DynamicLossScaleManager / DynamicLossScaleUpdateCell): a step
//     whose gradients overflow is not applied and divides the scale by
//     `factor` (never below 1); `window` clean steps in a row multiply it by
//     `factor` (never past the largest float).
// This class is the bookkeeping alone; the trainer checks the gradients.
#pragma once

#include <cstdint>
#include <string_view>

namespace parity::trainer {

enum class LossScaleKind { kFixed, kDynamic };

struct LossScaleOptions {
  LossScaleKind kind = LossScaleKind::kFixed;
  double scale = 1.0;                 // the fixed scale, or the dynamic scale's start
  bool drop_overflow_update = false;  // fixed: skip a step whose gradients overflow
  double factor = 2.0;                // dynamic: the step up and down
  std::int64_t window = 2000;         // dynamic: clean steps before a step up
};

// What a checkpoint keeps of a dynamic scaler.
struct LossScaleState {
  double scale = 1.0;
  std::int64_t clean_steps = 0;     // clean steps since the last change of scale
  std::int64_t overflow_steps = 0;  // steps whose gradients overflowed, over the whole run
  std::int64_t skipped_steps = 0;   // of those, the steps not applied
};

class LossScaler {
 public:
  explicit LossScaler(const LossScaleOptions& options);

  // The scale for the next step's loss and the divisor of its gradients.
  double scale() const { return state_.scale; }
  // Whether the gradients must be checked for Inf/NaN before each update.
  bool checks_overflow() const {
    return options_.kind == LossScaleKind::kDynamic || options_.drop_overflow_update;
  }
  // Records a step's outcome and moves the scale; returns whether the
  // step's update is applied.
  bool finish_step(bool overflow);

  const LossScaleState& state() const { return state_; }
  // A checkpoint's state (resuming; a fixed scaler keeps its own scale):
  // throws parity::Error, naming `where`,
  // for a non-positive scale or negative counters.
  void restore(const LossScaleState& state, std::string_view where);

 private:
  LossScaleOptions options_;
  LossScaleState state_;
};

}  // namespace parity::trainer
