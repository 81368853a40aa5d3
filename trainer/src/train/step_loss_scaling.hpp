// The loss scaler inside a training run: the scale each step's loss gradient
// is multiplied by, the overflow check after backward (every rank reaches the
// same verdict), and what the trace and a checkpoint keep of it. The trace
// gets, per step while loss scaling is in use, the counters `loss_scale` (the
// scale of that step), `overflow_steps` and `skipped_steps` (totals so far),
// and a `grad_overflow` instant (arg: the step) for each overflow.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "parity/profiler/recorder.hpp"
#include "parity/trainer/backend/backend.hpp"
#include "parity/trainer/checkpoint/training_checkpoint.hpp"
#include "parity/trainer/config/train_config.hpp"
#include "parity/trainer/debug/step_selection.hpp"
#include "parity/trainer/dist/communicator.hpp"
#include "parity/trainer/optim/loss_scaler.hpp"

namespace parity::trainer {

class StepLossScaling {
 public:
  // `recorder` and `communicator` may be null. At the steps of
  // `planted_overflows`, an Inf is written into the last gradient before the
  // check (--plant-overflow).
  StepLossScaling(const TrainConfig& config, Backend& backend, profiler::Recorder* recorder,
                  Communicator* communicator, std::optional<StepSelection> planted_overflows);

  double scale() const { return scaler_.scale(); }
  // After backward (and the AllReduce) of `step`: whether its update is to
  // be applied. Throws parity::Error when a dynamic scale of 1 still
  // overflows: no scale can help then, the training itself diverged.
  bool finish_step(std::int64_t step, std::span<ParamTensors* const> params);

  const LossScaleState& state() const { return scaler_.state(); }
  // The scaler's state under "parity.extra.loss_scale*" keys, and back.
  void save(TrainingCheckpoint& checkpoint) const;
  void restore(const TrainingCheckpoint& checkpoint, const std::string& where);
  // "dynamic loss scale 32768: 3 steps overflowed, 3 skipped" (totals since
  // the start of training); empty when loss scaling was not in use.
  std::string summary() const;

 private:
  bool in_use() const;

  LossScaler scaler_;
  LossScaleKind kind_;
  Backend& backend_;
  profiler::Recorder* recorder_;
  Communicator* communicator_;
  std::optional<StepSelection> planted_;
  profiler::NameId scale_name_, overflow_name_, skipped_name_, instant_name_;
};

}  // namespace parity::trainer
