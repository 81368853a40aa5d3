#include "parity/trainer/optim/lr_schedule.hpp"

#include <cmath>
#include <numbers>
#include <string>

#include "parity/core/error.hpp"

namespace parity::trainer {
namespace {

void validate(const LrSchedule& s, std::int64_t total_steps, std::int64_t warmup_steps) {
  const auto fail = [](const std::string& what) {
    throw Error(what, "learning-rate schedule", "fix the config's lr_* / warmup_epochs keys");
  };
  if (s.epochs < 1) fail("epoch_size must be at least 1, got " + std::to_string(s.epochs));
  if (s.steps_per_epoch < 1)
    fail("steps per epoch must be at least 1, got " + std::to_string(s.steps_per_epoch));
  if (s.lr_init < 0 || s.lr_max < 0 || s.lr_end < 0) fail("learning rates must not be negative");
  if (s.warmup_epochs < 0) fail("warmup_epochs must not be negative");
  if (warmup_steps > total_steps)
    fail("warmup (" + std::to_string(warmup_steps) + " steps) is longer than the run (" +
         std::to_string(total_steps) + " steps)");
}

// The seed document's _generate_cosine_lr, term for term.
double seed_cosine(const LrSchedule& s, std::int64_t i, std::int64_t total, std::int64_t warmup) {
  if (i < warmup)
    return s.lr_init +
           (s.lr_max - s.lr_init) / static_cast<double>(warmup) * static_cast<double>(i + 1);
  const double decay_steps = static_cast<double>(total - warmup);
  const double linear_decay = static_cast<double>(total - i) / decay_steps;
  const double cosine_decay =
      0.5 * (1 + std::cos(std::numbers::pi * 2 * 0.47 * static_cast<double>(i) / decay_steps));
  return s.lr_max * (linear_decay * cosine_decay + 0.00001);
}

double model_zoo_steps(const LrSchedule& s, std::int64_t i, std::int64_t total,
                       std::int64_t warmup) {
  if (i < warmup)
    return s.lr_init +
           (s.lr_max - s.lr_init) * static_cast<double>(i) / static_cast<double>(warmup);
  const double step = static_cast<double>(i), steps = static_cast<double>(total);
  if (step < 0.3 * steps) return s.lr_max;
  if (step < 0.6 * steps) return s.lr_max * 0.1;
  if (step < 0.8 * steps) return s.lr_max * 0.01;
  return s.lr_max * 0.001;
}

// model_zoo's _generate_step_lr, term for term: it has no warmup and ignores
// lr_init and lr_end.
double model_zoo_step(const LrSchedule& s, std::int64_t i, std::int64_t total,
                      std::int64_t /*warmup*/) {
  const double step = static_cast<double>(i), steps = static_cast<double>(total);
  if (step < 0.2 * steps) return s.lr_max;
  if (step < 0.5 * steps) return s.lr_max * 0.1;
  if (step < 0.7 * steps) return s.lr_max * 0.01;
  if (step < 0.9 * steps) return s.lr_max * 0.001;
  return 0.00005;
}

// model_zoo's _generate_liner_lr (what its get_lr does for any other mode name), term for term.
double model_zoo_linear(const LrSchedule& s, std::int64_t i, std::int64_t total,
                        std::int64_t warmup) {
  if (i < warmup)
    return s.lr_init +
           (s.lr_max - s.lr_init) * static_cast<double>(i) / static_cast<double>(warmup);
  return s.lr_max - (s.lr_max - s.lr_end) * static_cast<double>(i - warmup) /
                        static_cast<double>(total - warmup);
}

double constant(const LrSchedule& s, std::int64_t i, std::int64_t /*total*/, std::int64_t warmup) {
  if (i < warmup)
    return s.lr_init +
           (s.lr_max - s.lr_init) * static_cast<double>(i) / static_cast<double>(warmup);
  return s.lr_max;
}

double model_zoo_poly(const LrSchedule& s, std::int64_t i, std::int64_t total,
                      std::int64_t warmup) {
  if (i < warmup)
    return s.lr_init +
           (s.lr_max - s.lr_init) / static_cast<double>(warmup) * static_cast<double>(i);
  const double base = 1.0 - static_cast<double>(i - warmup) / static_cast<double>(total - warmup);
  return std::max(0.0, s.lr_max * base * base);
}

double nvidia_warmup_cosine(const LrSchedule& s, std::int64_t i, std::int64_t total,
                            std::int64_t warmup) {
  if (i < warmup) return s.lr_max * static_cast<double>(i + 1) / static_cast<double>(warmup);
  const double progress = static_cast<double>(i - warmup) / static_cast<double>(total - warmup);
  return s.lr_end + 0.5 * (1 + std::cos(std::numbers::pi * progress)) * (s.lr_max - s.lr_end);
}

}  // namespace

std::vector<double> generate_learning_rates(const LrSchedule& s) {
  const std::int64_t total = s.epochs * s.steps_per_epoch;
  const auto warmup = static_cast<std::int64_t>(
      std::llround(s.warmup_epochs * static_cast<double>(s.steps_per_epoch)));
  validate(s, total, warmup);
  std::vector<double> rates;
  rates.reserve(static_cast<std::size_t>(total));
  for (std::int64_t i = 0; i < total; ++i) {
    switch (s.mode) {
      case LrDecayMode::kCosine:
        rates.push_back(seed_cosine(s, i, total, warmup));
        break;
      case LrDecayMode::kSteps:
        rates.push_back(model_zoo_steps(s, i, total, warmup));
        break;
      case LrDecayMode::kStep:
        rates.push_back(model_zoo_step(s, i, total, warmup));
        break;
      case LrDecayMode::kPoly:
        rates.push_back(model_zoo_poly(s, i, total, warmup));
        break;
      case LrDecayMode::kLinear:
        rates.push_back(model_zoo_linear(s, i, total, warmup));
        break;
      case LrDecayMode::kWarmupCosine:
        rates.push_back(nvidia_warmup_cosine(s, i, total, warmup));
        break;
      case LrDecayMode::kConstant:
        rates.push_back(constant(s, i, total, warmup));
        break;
    }
  }
  return rates;
}

}  // namespace parity::trainer
