// The ResNet a config asks for: depth, classes, input, seed and stem.
#pragma once

#include <cstdint>

#include "parity/trainer/config/train_config.hpp"
#include "parity/trainer/nn/resnet.hpp"

namespace parity::trainer {

inline ResNetOptions network_options(const TrainConfig& config) {
  return {resnet_depth(config.net_name),
          config.class_num,
          config.zero_init_residual,
          {config.batch_size, 3, config.train_image_size, config.train_image_size},
          static_cast<std::uint64_t>(config.seed),
          config.stem,
          {}};
}

}  // namespace parity::trainer
