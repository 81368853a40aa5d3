// The `optimizer` config key: MindSpore model_zoo's three ResNet optimizers,
// named as its configs name them (case-insensitive here). Momentum is the one
// parity-train trains with; a config naming Thor or LARS loads (its other
// keys can be read, evaluated, converted) but training refuses to start.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parity::trainer {

enum class OptimizerKind {
  kMomentum,  // SGD with momentum (MindSpore's nn.Momentum): what we train with
  kThor,      // MindSpore's second-order THOR: not implemented yet
  kLars,      // nn.LARS around Momentum (the Boost config): not implemented
};

// Case-insensitive: "momentum", "Momentum" and "MOMENTUM" are one optimizer.
std::optional<OptimizerKind> parse_optimizer(std::string_view name);
// The model_zoo spelling: Momentum, Thor, LARS.
std::string_view optimizer_name(OptimizerKind kind);
std::vector<std::string_view> optimizer_names();

// Throws parity::Error (exit code 2 in parity-train) unless `name` is an
// optimizer parity-train can train with, saying how to train with Momentum.
void require_trainable_optimizer(const std::string& name);

}  // namespace parity::trainer
