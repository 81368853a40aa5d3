// The first layers of a ResNet (the `stem` config key): ImageNet's, or the
// small-image variant CIFAR-sized inputs want.
#pragma once

namespace parity::trainer {

enum class Stem {
  kAuto,        // small-image stem for images of 32 px or less, ImageNet's otherwise
  kSmallImage,  // conv1 3x3 stride 1, no max pool
  kImageNet,    // conv1 7x7 stride 2, 3x3 stride 2 max pool
};

}  // namespace parity::trainer
