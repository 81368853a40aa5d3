// The names below are those MindSpore's optimizers, loss-scale cells and
// ModelCheckpoint give their Parameters (mindspore/nn/optim/*.py,
// nn/wrap/loss_scale.py, train/callback/_checkpoint.py), and the keys of the
// training checkpoints PyTorch's tutorials and reference scripts save.
#include "parity/importers/naming/training_state.hpp"

#include <array>
#include <unordered_set>

namespace parity::importers {
namespace {

struct Known {
  std::string_view name;
  TrainingStateKind kind;
  std::string_view what;
};

constexpr auto kOptimizer = TrainingStateKind::kOptimizer;
constexpr auto kBookkeeping = TrainingStateKind::kBookkeeping;

// Per-parameter slots: MindSpore's optimizers clone their parameters under
// these prefixes ("moments.conv1.weight").
constexpr std::array<Known, 15> kSlots{{
    {"moments", kOptimizer, "MindSpore Momentum (or FTRL) moments"},
    {"moment1", kOptimizer, "MindSpore Adam first moments"},
    {"moment2", kOptimizer, "MindSpore Adam second moments"},
    {"moment3", kOptimizer, "MindSpore Adan third moments"},
    {"vhat", kOptimizer, "MindSpore Adam (amsgrad) maxima"},
    {"adam_m", kOptimizer, "MindSpore AdamWeightDecay first moments"},
    {"adam_v", kOptimizer, "MindSpore AdamWeightDecay second moments"},
    {"accum", kOptimizer, "MindSpore Adagrad/SGD/Adadelta accumulators"},
    {"accum_update", kOptimizer, "MindSpore Adadelta update accumulators"},
    {"stat", kOptimizer, "MindSpore SGD first-step flags"},
    {"mean_square", kOptimizer, "MindSpore RMSProp mean squares"},
    {"moment", kOptimizer, "MindSpore RMSProp moments"},
    {"mean_grad", kOptimizer, "MindSpore centered RMSProp mean gradients"},
    {"linear", kOptimizer, "MindSpore FTRL linear terms"},
    {"prev_gradient", kOptimizer, "MindSpore Adan previous gradients"},
}};

// Whole names.
constexpr std::array<Known, 19> kNames{{
    {"learning_rate", kOptimizer, "MindSpore optimizer's learning rate"},
    {"momentum", kOptimizer, "MindSpore Momentum's momentum"},
    {"global_step", kOptimizer, "optimizer's step counter"},
    {"lars_global_step", kOptimizer, "MindSpore LARS step counter"},
    {"beta1_power", kOptimizer, "MindSpore Adam's beta1 power"},
    {"beta2_power", kOptimizer, "MindSpore Adam's beta2 power"},
    {"scale_sense", kBookkeeping, "MindSpore loss scale"},
    {"loss_scale", kBookkeeping, "loss scale"},
    {"current_iterator_step", kBookkeeping, "MindSpore dynamic loss scale's step"},
    {"last_overflow_iterator_step", kBookkeeping, "MindSpore dynamic loss scale's last overflow"},
    {"epoch_num", kBookkeeping, "MindSpore ModelCheckpoint's epoch number"},
    {"step_num", kBookkeeping, "MindSpore ModelCheckpoint's step number"},
    {"epoch", kBookkeeping, "training checkpoint's epoch"},
    {"step", kBookkeeping, "training checkpoint's step"},
    {"iteration", kBookkeeping, "training checkpoint's iteration"},
    {"loss", kBookkeeping, "training checkpoint's loss"},
    {"best_acc1", kBookkeeping, "training checkpoint's best accuracy"},
    {"best_acc", kBookkeeping, "training checkpoint's best accuracy"},
    {"best_prec1", kBookkeeping, "training checkpoint's best accuracy"},
}};

// First components of a PyTorch training checkpoint's non-model entries
// ("optimizer.state.0.momentum_buffer"); our own trainer's checkpoints keep
// their momentum under "optimizer.momentum_buffer.".
constexpr std::array<Known, 8> kSections{{
    {"optimizer", kOptimizer, "optimizer state"},
    {"optimizer_state_dict", kOptimizer, "optimizer state"},
    {"optim", kOptimizer, "optimizer state"},
    {"scheduler", kBookkeeping, "learning-rate scheduler state"},
    {"lr_scheduler", kBookkeeping, "learning-rate scheduler state"},
    {"scaler", kBookkeeping, "gradient scaler state"},
    {"grad_scaler", kBookkeeping, "gradient scaler state"},
    {"amp", kBookkeeping, "mixed-precision state"},
}};

// MindSpore THOR keeps its second-order statistics in the layers it
// preconditions ("conv1.matrix_a" beside "conv1.weight").
constexpr std::array<std::string_view, 4> kThorLeaves{"matrix_a", "matrix_g", "a_normalizer",
                                                      "g_normalizer"};

template <std::size_t N>
const Known* find(const std::array<Known, N>& table, std::string_view name) {
  for (const Known& known : table)
    if (known.name == name) return &known;
  return nullptr;
}

std::optional<TrainingState> classify(const std::string& name,
                                      const std::unordered_set<std::string_view>& names) {
  if (const Known* known = find(kNames, name))
    return TrainingState{known->kind, std::string(known->what), ""};
  const auto dot = name.find('.');
  if (dot == std::string::npos) return std::nullopt;
  const std::string_view head(name.data(), dot);
  const std::string_view rest(name.data() + dot + 1, name.size() - dot - 1);
  if (const Known* slot = find(kSlots, head); slot && names.contains(rest))
    return TrainingState{slot->kind, std::string(slot->what), std::string(rest)};
  if (const Known* section = find(kSections, head))
    return TrainingState{
        section->kind,
        std::string(section->what) + " ('" + std::string(head) + "' of a training checkpoint)", ""};
  const auto last = name.rfind('.');
  const std::string_view leaf(name.data() + last + 1, name.size() - last - 1);
  for (const std::string_view thor : kThorLeaves)
    if (leaf == thor && names.contains(name.substr(0, last) + ".weight"))
      return TrainingState{kOptimizer, "MindSpore THOR statistics", name.substr(0, last)};
  return std::nullopt;
}

}  // namespace

std::string_view training_state_kind_name(TrainingStateKind kind) {
  return kind == TrainingStateKind::kOptimizer ? "optimizer state" : "bookkeeping";
}

std::vector<std::optional<TrainingState>> classify_training_state(
    const std::vector<TensorEntry>& entries) {
  std::unordered_set<std::string_view> names;
  for (const TensorEntry& entry : entries) names.insert(entry.name);
  std::vector<std::optional<TrainingState>> out;
  out.reserve(entries.size());
  for (const TensorEntry& entry : entries) out.push_back(classify(entry.name, names));
  return out;
}

}  // namespace parity::importers
