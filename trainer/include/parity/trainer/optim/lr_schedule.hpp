// Learning-rate schedules, one value per training step, with the exact
// formulas of the MindSpore ResNet recipes our seeds describe (model_zoo's
// lr_generator: `cosine` as in the seed's _generate_cosine_lr, `steps`,
// `step`, `poly`, `linear`), a per-step form of NVIDIA's warmup + cosine
// recipe, and a constant rate (what a step-by-step comparison with another
// framework wants).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace parity::trainer {

enum class LrDecayMode {
  kCosine,        // seed: linear warmup to lr_max, then lr_max * (linear * cosine(0.94 pi) + 1e-5)
  kSteps,         // model_zoo: warmup, then lr_max x 1, 0.1, 0.01, 0.001 at 30/60/80% of steps
  kPoly,          // model_zoo: warmup, then lr_max * (1 - progress)^2
  kLinear,        // model_zoo (_generate_liner_lr): warmup, then lr_max down to lr_end in a line
  kStep,          // model_zoo (_generate_step_lr): no warmup; lr_max x 1, 0.1, 0.01, 0.001 at
                  // 20/50/70% of steps, then 0.00005 from 90% (absolute, not times lr_max)
  kWarmupCosine,  // NVIDIA: lr_max * (i+1)/warmup, then cosine from lr_max down to lr_end
  kConstant,      // ours, for comparison runs: the steps mode's warmup, then lr_max throughout
};

struct LrSchedule {
  LrDecayMode mode = LrDecayMode::kCosine;
  double lr_init = 0.0;
  double lr_max = 0.1;
  double lr_end = 0.0;
  double warmup_epochs = 0.0;
  std::int64_t epochs = 1;
  std::int64_t steps_per_epoch = 1;
};

// The learning rate of every step of the run (epochs * steps_per_epoch values).
// Throws parity::Error naming the bad setting for an impossible schedule.
std::vector<double> generate_learning_rates(const LrSchedule& schedule);

}  // namespace parity::trainer
