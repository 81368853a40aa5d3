// Planted faults: the migration bugs our seeds warn about, reproduced on
// purpose in one named layer, and a NaN planted in one layer's output at one
// step. They exist to prove that `parity compare` and `parity nan-scan` find
// what went wrong, and where (`parity-train train --plant-bug`, `--plant-nan`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parity/trainer/loss/softmax_cross_entropy.hpp"
#include "parity/trainer/nn/resnet.hpp"

namespace parity::trainer {

struct PlantedBug {
  enum Kind {
    kSamePadding,  // same-pad: MindSpore's pad_mode="same" in a stride-2 conv (extra pad at the
                   // end)
    kBatchNormEpsilon,  // bn-eps: epsilon 1e-3 instead of 1e-5 in one batch norm
    kLabelSmoothing,    // label-smooth: MindSpore's eps/(K-1) off-value instead of eps/K
    kTransposedWeight,  // transpose-weight: a square conv's weight with its in/out axes swapped
    kDroppedRelu,       // drop-relu: a residual block's output is main + shortcut, without the ReLU
    kBatchNormMomentum,  // bn-momentum: MindSpore's momentum 0.9 taken as PyTorch's (which is 0.1)
    kFrozenBatchNormStats,  // frozen-bn-stats: a batch norm whose running statistics never move
  };
  Kind kind = kSamePadding;
  std::string layer;  // the torchvision name of the layer it is planted in ("" for label-smooth)

  // "KIND[:LAYER]"; each kind has a default layer. An Error lists the kinds.
  static PlantedBug parse(std::string_view text);
  std::string text() const;
};

// Adds the structural bugs (padding, epsilon, a dropped ReLU, batch-norm
// momentum) to the model's options and the
// loss bug to the loss options. Call check_planted() after building the
// model: a layer that does not exist, or is not of the right kind, is an
// Error then.
class BugPlanter {
 public:
  explicit BugPlanter(std::vector<PlantedBug> bugs) : bugs_(std::move(bugs)) {}
  void plant(ResNetOptions& model, LossOptions& loss);
  void check_planted() const;
  // Swaps the in/out axes of the transpose-weight layers' weights: call after
  // the initial weights are in place.
  void transpose_weights(Backend& backend, ModelState& state) const;

 private:
  std::vector<PlantedBug> bugs_;
  std::vector<std::string> planted_;  // layers the model builder reported
};

// "LAYER@STEP": NaN in LAYER's forward output at STEP.
struct PlantedNan {
  std::string layer;
  std::int64_t step = 0;
  static PlantedNan parse(std::string_view text);
};

// Writes a NaN into the first element of the named layer's forward output at
// the chosen step; the run goes on as if the op had produced it.
class NanPlanter final : public TensorObserver {
 public:
  NanPlanter(Backend& backend, PlantedNan target) : backend_(backend), target_(std::move(target)) {}
  void begin_step(std::int64_t step) override { step_ = step; }
  void forward_output(const Module& module, const Tensor& output) override;
  bool planted() const { return planted_; }

 private:
  Backend& backend_;
  PlantedNan target_;
  std::int64_t step_ = 0;
  bool planted_ = false;
};

}  // namespace parity::trainer
