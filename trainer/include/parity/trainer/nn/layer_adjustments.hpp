// LayerAdjustments: changes to single layers' settings, by torchvision name,
// made just before the layer is built. This is how `parity-train --plant-bug`
// reproduces a migration bug (MindSpore's asymmetric "same" padding, another
// batch-norm epsilon, a residual block without its final ReLU) in exactly
// one layer; a model built without
// adjustments is the reference network.
#pragma once

#include <functional>
#include <string>

#include "parity/trainer/backend/backend.hpp"

namespace parity::trainer {

struct LayerAdjustments {
  std::function<void(const std::string& name, Conv2dSpec& spec)> conv;
  std::function<void(const std::string& name, BatchNormSpec& spec)> batch_norm;
  // Whether the residual block of this name ends with its ReLU (by default it does).
  std::function<bool(const std::string& block)> block_relu;

  Conv2dSpec adjusted(const std::string& name, Conv2dSpec spec) const {
    if (conv) conv(name, spec);
    return spec;
  }
  BatchNormSpec adjusted(const std::string& name, BatchNormSpec spec) const {
    if (batch_norm) batch_norm(name, spec);
    return spec;
  }
  bool keeps_relu(const std::string& block) const { return !block_relu || block_relu(block); }
};

}  // namespace parity::trainer
