#include "parity/trainer/optim/optimizer_choice.hpp"

#include <string>

#include "parity/core/error.hpp"
#include "parity/trainer/config/config_choices.hpp"

namespace parity::trainer {

void require_trainable_optimizer(OptimizerKind kind) {
  if (kind == OptimizerKind::kMomentum || kind == OptimizerKind::kThor) return;
  throw Error("optimizer " + std::string(name_of(kind)) +
                  " is not implemented yet: parity-train trains with Momentum (SGD with "
                  "momentum, MindSpore's nn.Momentum) and Thor",
              "config key 'optimizer'",
              "train with Momentum: --set optimizer=Momentum (the config's lr_* keys then set "
              "the schedule; docs/trainer.md)");
}

}  // namespace parity::trainer
