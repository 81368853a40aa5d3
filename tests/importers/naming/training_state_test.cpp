// What a checkpoint holds besides the model: MindSpore's optimizer slots and
// scalars, loss-scale and ModelCheckpoint bookkeeping, a PyTorch training
// checkpoint's optimizer and epoch; and layers that only look like them.
#include "parity/importers/naming/training_state.hpp"

#include <catch2/catch.hpp>

using namespace parity;
using namespace parity::importers;

namespace {

// name -> "optimizer state: what of X", "bookkeeping: what", or "model".
std::vector<std::string> classified(const std::vector<std::string>& names) {
  std::vector<TensorEntry> entries;
  for (const std::string& name : names) entries.push_back({name, DType::kFloat32, {1}});
  std::vector<std::string> out;
  for (const auto& state : classify_training_state(entries))
    out.push_back(state ? std::string(training_state_kind_name(state->kind)) + ": " +
                              state->description()
                        : "model");
  return out;
}

}  // namespace

TEST_CASE("MindSpore's optimizer slots and scalars are optimizer state", "[unit][naming]") {
  const auto out = classified({"conv1.weight", "bn1.gamma", "moments.conv1.weight",
                               "moments.bn1.gamma", "moment1.conv1.weight", "moment2.bn1.gamma",
                               "adam_m.conv1.weight", "accum.conv1.weight", "learning_rate",
                               "momentum", "global_step", "beta1_power", "beta2_power"});
  CHECK(out == std::vector<std::string>{
                   "model", "model",
                   "optimizer state: MindSpore Momentum (or FTRL) moments of conv1.weight",
                   "optimizer state: MindSpore Momentum (or FTRL) moments of bn1.gamma",
                   "optimizer state: MindSpore Adam first moments of conv1.weight",
                   "optimizer state: MindSpore Adam second moments of bn1.gamma",
                   "optimizer state: MindSpore AdamWeightDecay first moments of conv1.weight",
                   "optimizer state: MindSpore Adagrad/SGD/Adadelta accumulators of conv1.weight",
                   "optimizer state: MindSpore optimizer's learning rate",
                   "optimizer state: MindSpore Momentum's momentum",
                   "optimizer state: optimizer's step counter",
                   "optimizer state: MindSpore Adam's beta1 power",
                   "optimizer state: MindSpore Adam's beta2 power"});
}

TEST_CASE("loss scale and checkpoint counters are bookkeeping", "[unit][naming]") {
  CHECK(classified({"scale_sense", "current_iterator_step", "last_overflow_iterator_step",
                    "epoch_num", "step_num", "epoch", "best_acc1"}) ==
        std::vector<std::string>{"bookkeeping: MindSpore loss scale",
                                 "bookkeeping: MindSpore dynamic loss scale's step",
                                 "bookkeeping: MindSpore dynamic loss scale's last overflow",
                                 "bookkeeping: MindSpore ModelCheckpoint's epoch number",
                                 "bookkeeping: MindSpore ModelCheckpoint's step number",
                                 "bookkeeping: training checkpoint's epoch",
                                 "bookkeeping: training checkpoint's best accuracy"});
}

TEST_CASE("a PyTorch training checkpoint's optimizer and scheduler, and our momentum buffers",
          "[unit][naming]") {
  const auto out = classified({"state_dict.fc.weight", "optimizer.state.0.momentum_buffer",
                               "optimizer.param_groups.0.lr", "lr_scheduler.base_lrs.0",
                               "optimizer.momentum_buffer.fc.weight"});
  CHECK(out[0] == "model");
  CHECK(out[1] == "optimizer state: optimizer state ('optimizer' of a training checkpoint)");
  CHECK(out[2] == out[1]);
  CHECK(out[3] ==
        "bookkeeping: learning-rate scheduler state ('lr_scheduler' of a training checkpoint)");
  CHECK(out[4] == out[1]);
}

TEST_CASE("THOR's statistics beside a layer's weight are optimizer state", "[unit][naming]") {
  CHECK(classified({"conv1.weight", "conv1.matrix_a", "conv1.g_normalizer", "fc.matrix_g"}) ==
        std::vector<std::string>{"model", "optimizer state: MindSpore THOR statistics of conv1",
                                 "optimizer state: MindSpore THOR statistics of conv1", "model"});
}

TEST_CASE("layers named like optimizer slots stay model tensors", "[unit][naming]") {
  // "linear" and "moment" are FTRL's and RMSProp's slots only in front of
  // another parameter's whole name.
  CHECK(classified({"linear.weight", "linear.bias", "moment.weight", "head.momentum",
                    "moments.missing.weight"}) ==
        std::vector<std::string>{"model", "model", "model", "model", "model"});
}
