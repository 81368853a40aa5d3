// The `optimizer` config key: MindSpore model_zoo's three ResNet optimizers
// (named in config/config_choices.cpp, in any case). parity-train trains
// with Momentum and Thor; a config naming LARS loads (its other keys can be
// read, evaluated, converted) but training refuses to start.
#pragma once

namespace parity::trainer {

enum class OptimizerKind {
  kMomentum,  // SGD with momentum (MindSpore's nn.Momentum): what we train with
  kThor,      // MindSpore's second-order THOR: optim/thor.hpp, then Momentum's update
  kLars,      // nn.LARS around Momentum (the Boost config): not implemented
};

// Throws parity::Error (exit code 2 in parity-train) unless `kind` is an
// optimizer parity-train can train with, saying how to train with Momentum.
void require_trainable_optimizer(OptimizerKind kind);

}  // namespace parity::trainer
