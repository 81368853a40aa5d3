// A small training checkpoint for the checkpoint tests: a conv-bn-fc model's
// state_dict with torchvision names and SGD momentum buffers, filled with the
// pattern that checkpoint_peer.py checks on the PyTorch side.
#pragma once

#include "parity/trainer/checkpoint/training_checkpoint.hpp"
#include "safetensors_fixture.hpp"

namespace parity::test {

// The module of checkpoint_peer.py: conv1 (3->4, 3x3, no bias), bn1, fc (4->2).
inline std::vector<importers::NamedTensor> small_model_state() {
  std::vector<importers::NamedTensor> tensors{
      pattern_tensor("conv1.weight", DType::kFloat32, {4, 3, 3, 3}),
      pattern_tensor("bn1.weight", DType::kFloat32, {4}),
      pattern_tensor("bn1.bias", DType::kFloat32, {4}),
      pattern_tensor("bn1.running_mean", DType::kFloat32, {4}),
  };
  const std::vector<float> variance{0.5f, 1.0f, 1.5f, 2.0f};  // positive, unlike the pattern
  tensors.push_back(importers::NamedTensor::from_values<float>("bn1.running_var", {4}, variance));
  const std::int64_t batches = 1875;
  tensors.push_back(importers::NamedTensor::from_values<std::int64_t>("bn1.num_batches_tracked", {},
                                                                      std::span(&batches, 1)));
  tensors.push_back(pattern_tensor("fc.weight", DType::kFloat32, {2, 4}));
  tensors.push_back(pattern_tensor("fc.bias", DType::kFloat32, {2}));
  return tensors;
}

inline trainer::TrainingCheckpoint small_checkpoint(std::int64_t epoch, std::int64_t step_in_epoch,
                                                    std::int64_t steps_per_epoch = 1875) {
  trainer::TrainingCheckpoint checkpoint;
  checkpoint.tensors = small_model_state();
  for (const char* name : {"conv1.weight", "bn1.weight", "bn1.bias", "fc.weight", "fc.bias"}) {
    for (const auto& tensor : small_model_state())
      if (tensor.name == name) {
        auto buffer = tensor;
        buffer.name = std::string(trainer::kMomentumBufferPrefix) + name;
        checkpoint.tensors.push_back(std::move(buffer));
      }
  }
  checkpoint.epoch = epoch;
  checkpoint.step_in_epoch = step_in_epoch;
  checkpoint.step = (epoch > 0 ? epoch - 1 : 0) * steps_per_epoch + step_in_epoch;
  checkpoint.rng_state = std::string("mt19937\0\x01\xff state", 16);
  checkpoint.config_yaml = "net_name: resnet50\nbatch_size: 32  # ünïcode\n";
  checkpoint.extra = {{"best_top1", "0.9132"}, {"note", ""}};
  return checkpoint;
}

}  // namespace parity::test
