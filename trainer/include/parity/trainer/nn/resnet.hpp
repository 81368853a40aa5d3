// ResNet-18/34/50/101/152, v1.5, as torchvision builds it: same module and
// parameter names, same initialisation (Kaiming normal, fan_out, for convs;
// BN weight 1, bias 0; Linear's default uniform), optional zero-init of each
// block's last BN weight. Images of 32 px or less get the small-image stem
// (conv1 3x3 stride 1, no max pool); larger ones torchvision's (7x7 stride 2
// conv and 3x3 stride 2 max pool).
#pragma once

#include <memory>

#include "parity/trainer/nn/layer_adjustments.hpp"
#include "parity/trainer/nn/sequential.hpp"
#include "parity/trainer/nn/stem.hpp"

namespace parity::trainer {

struct ResNetOptions {
  int depth = 50;  // 18, 34, 50, 101 or 152
  std::int64_t num_classes = 1000;
  bool zero_init_residual = false;
  Dims input{32, 3, 224, 224};  // the training batch, NCHW
  std::uint64_t seed = 1;       // initial weights
  Stem stem = Stem::kAuto;
  LayerAdjustments adjustments;  // debugging: single layers built differently
};

bool uses_small_image_stem(const Dims& input, Stem stem = Stem::kAuto);

class ResNet {
 public:
  ResNet(Backend& backend, const ResNetOptions& options, Tracing& tracing);

  Tensor forward(const Tensor& images, Mode mode);  // logits [N, num_classes]
  void backward(const Tensor& grad_logits);
  ModelState& state() { return state_; }
  const ResNetOptions& options() const { return options_; }

 private:
  void initialise(Backend& backend, const std::vector<std::string>& zeroed_weights);

  ResNetOptions options_;
  Sequential root_;
  ModelState state_;
};

}  // namespace parity::trainer
