// The settings of a debugging run (`parity-train train` options beyond the
// config): start from given weights, feed one fixed batch, dump tensors,
// probe gradient signs, stop at the first NaN/Inf, and plant known faults.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "parity/trainer/debug/grad_sign_probe.hpp"
#include "parity/trainer/debug/planted_faults.hpp"
#include "parity/trainer/debug/step_selection.hpp"
#include "parity/trainer/debug/tensor_dumper.hpp"

namespace parity::trainer {

struct DebugOptions {
  // The initial weights: any tensor file holding the model's whole
  // state_dict (.pth, .safetensors, .ckpt, .npz), its names lined up with
  // torchvision's by `weights_map` (train/foreign_weights.hpp).
  std::optional<std::filesystem::path> init_weights;
  std::string weights_map = "auto";
  // One batch used at every step instead of the dataset.
  std::optional<std::filesystem::path> input_images, input_labels;
  std::optional<DumpOptions> dump;
  // Every step's gradient signs (--probe-grads, --probe-dir).
  std::optional<GradProbeOptions> probe;
  bool detect_anomaly = false;
  std::vector<PlantedBug> bugs;
  std::optional<PlantedNan> nan;
  // Steps whose gradients get an Inf before the loss scaler's check
  // (--plant-overflow): proves that overflowing steps are skipped.
  std::optional<StepSelection> overflow_steps;
};

}  // namespace parity::trainer
