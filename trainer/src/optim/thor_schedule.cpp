#include "parity/trainer/optim/thor_schedule.hpp"

#include <cmath>
#include <string>

#include "parity/core/error.hpp"

namespace parity::trainer {
namespace {

[[noreturn]] void refuse(const std::string& what) {
  throw Error(what, "THOR schedule", "fix the config's THOR keys (docs/thor.md)");
}

void check_count(const ThorSchedule& s, std::int64_t count) {
  if (s.steps_per_epoch < 1)
    refuse("steps per epoch must be at least 1, got " + std::to_string(s.steps_per_epoch));
  if (count < 0) refuse("a schedule of " + std::to_string(count) + " steps");
}

// model_zoo's epoch of step i: (i + 1) / steps_per_epoch, a true division.
double epoch_of(std::int64_t step, std::int64_t steps_per_epoch) {
  return static_cast<double>(step + 1) / static_cast<double>(steps_per_epoch);
}

// np.array(values).astype(np.float32), kept as a double.
double float32(double value) { return static_cast<double>(static_cast<float>(value)); }

}  // namespace

std::vector<double> thor_learning_rates(const ThorSchedule& s, std::int64_t count) {
  check_count(s, count);
  if (s.lr_end_epoch < 1)
    refuse("lr_end_epoch must be at least 1, got " + std::to_string(s.lr_end_epoch));
  // Past lr_end_epoch, 1 - epoch/lr_end_epoch is negative and its power not real.
  if (count > s.lr_end_epoch * s.steps_per_epoch)
    refuse("lr_end_epoch " + std::to_string(s.lr_end_epoch) + " at " +
           std::to_string(s.steps_per_epoch) + " steps per epoch ends THOR's learning rate after " +
           std::to_string(s.lr_end_epoch * s.steps_per_epoch) + " steps, not " +
           std::to_string(count));
  const double total_epochs = static_cast<double>(s.lr_end_epoch);
  const double decay_epochs = static_cast<double>(s.decay_epochs);
  std::vector<double> rates;
  rates.reserve(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    const double epoch = epoch_of(i, s.steps_per_epoch);
    double rate = s.lr_init * std::pow(1.0 - epoch / total_epochs, s.lr_decay);
    if (epoch >= decay_epochs) rate *= 0.5;
    if (epoch >= decay_epochs + 1) rate *= 0.5;
    rates.push_back(float32(rate));
  }
  return rates;
}

std::vector<double> thor_dampings(const ThorSchedule& s, std::int64_t count) {
  check_count(s, count);
  std::vector<double> dampings;
  dampings.reserve(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i)
    dampings.push_back(
        float32(s.damping_init * std::pow(s.damping_decay, epoch_of(i, s.steps_per_epoch) / 10)));
  return dampings;
}

ThorSchedule thor_schedule(const TrainConfig& config, std::int64_t steps_per_epoch) {
  return {.lr_init = config.lr_init,
          .lr_decay = config.lr_decay,
          .lr_end_epoch = config.lr_end_epoch,
          .decay_epochs = config.thor_lr_decay_epochs,
          .damping_init = config.damping_init,
          .damping_decay = config.damping_decay,
          .steps_per_epoch = steps_per_epoch};
}

}  // namespace parity::trainer
