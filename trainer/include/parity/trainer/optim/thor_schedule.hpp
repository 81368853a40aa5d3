// THOR's two per-step schedules, exactly as MindSpore model_zoo's ResNet
// recipe builds them (official/cv/ResNet/src/lr_generator.py, get_thor_lr and
// get_thor_damping; docs/thor.md has the formulas term for term): the
// learning rate decays as a power of the epochs left and halves twice near the
// end, the damping decays geometrically every 10 epochs. MindSpore casts both
// lists to float32, so each value here is float32-rounded (held as a double).
#pragma once

#include <cstdint>
#include <vector>

#include "parity/trainer/config/train_config.hpp"

namespace parity::trainer {

struct ThorSchedule {
  double lr_init = 0.0, lr_decay = 0.0;
  std::int64_t lr_end_epoch = 1, decay_epochs = 39;
  double damping_init = 0.0, damping_decay = 1.0;
  std::int64_t steps_per_epoch = 1;
};

// The learning rate of global steps 0 .. count-1 (get_thor_lr), float32-rounded.
// Throws parity::Error when count passes lr_end_epoch epochs (the power's base
// would be negative) or a setting is out of range.
std::vector<double> thor_learning_rates(const ThorSchedule& schedule, std::int64_t count);

// The damping of global steps 0 .. count-1 (get_thor_damping), float32-rounded.
std::vector<double> thor_dampings(const ThorSchedule& schedule, std::int64_t count);

// The schedule of a config (its THOR keys, lr_init, and the run's steps per epoch).
ThorSchedule thor_schedule(const TrainConfig& config, std::int64_t steps_per_epoch);

}  // namespace parity::trainer
