// What a checkpoint holds besides the model: an optimizer's state (MindSpore's
// `moments.*` or `moment1.*`, its `learning_rate` and `global_step`; a PyTorch
// training checkpoint's `optimizer` entry) and a training loop's bookkeeping
// (`epoch_num`, `step_num`, the loss scale, a PyTorch checkpoint's `epoch`).
// MindSpore's ModelCheckpoint writes these beside the parameters; they are no
// part of the network, so `parity diff` lists them apart and the trainer
// skips them when it loads weights. The names recognised, with where they
// come from, are listed in docs/diff.md.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parity/importers/tensor_source.hpp"

namespace parity::importers {

enum class TrainingStateKind { kOptimizer, kBookkeeping };

// "optimizer state", "bookkeeping".
std::string_view training_state_kind_name(TrainingStateKind kind);

struct TrainingState {
  TrainingStateKind kind = TrainingStateKind::kOptimizer;
  std::string what;  // e.g. "MindSpore Momentum (or FTRL) moments", shared by its kind of entry
  std::string of;    // the parameter or layer it belongs to, if any ("conv1.weight")

  // "MindSpore Momentum (or FTRL) moments of conv1.weight".
  std::string description() const { return of.empty() ? what : what + " of " + of; }
};

// One result per entry, in order: nullopt for the model's own tensors. A
// per-parameter optimizer slot (`moments.conv1.weight`) is recognised only
// when the file also holds the parameter it belongs to (`conv1.weight`), so
// a layer that happens to be called `linear` or `moment` stays a layer.
std::vector<std::optional<TrainingState>> classify_training_state(
    const std::vector<TensorEntry>& entries);

}  // namespace parity::importers
