#include "dump_settings.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "parity/core/version.hpp"
#include "parity/trainer/backend/precision.hpp"
#include "parity/trainer/config/choice.hpp"

namespace parity::trainer {
namespace {

constexpr std::size_t kLearningRatesRecorded = 8;

// As Python's f"{value:g}" writes it, which is what dump_reference.py records.
std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string first_learning_rates(std::span<const double> rates) {
  std::string text;
  for (std::size_t i = 0; i < std::min(rates.size(), kLearningRatesRecorded); ++i)
    text += (i ? "," : "") + number(rates[i]);
  return text;
}

}  // namespace

importers::RunSettings dump_settings(const TrainConfig& config,
                                     std::span<const double> learning_rates,
                                     std::string_view backend_description) {
  importers::RunSettings settings;
  settings.config = {
      {"optimizer", config.optimizer == OptimizerKind::kMomentum
                        ? std::string("sgd")
                        : std::string(name_of(config.optimizer))},
      {"lr", first_learning_rates(learning_rates)},
      {"momentum", number(config.momentum)},
      {"nesterov", config.nesterov ? "true" : "false"},
      {"weight_decay", number(config.weight_decay)},
      // Batch norms' weights and every bias are left out (TrainConfig::weight_decay).
      {"weight_decay_on", "weights with 2 or more dimensions"},
      {"label_smoothing", number(config.use_label_smooth ? config.label_smooth_factor : 0.0)},
      {"label_smoothing_convention", std::string(name_of(config.label_smooth_convention))},
      {"dtype", precision_name(config.precision)},
      {"loss_scale", number(config.loss_scale)},
      {"num_classes", std::to_string(config.class_num)},
  };
  settings.versions = {{"parity-train", kVersion},
                       {"backend", std::string(backend_description)}};
  settings.environment = importers::recorded_environment();
  return settings;
}

}  // namespace parity::trainer
