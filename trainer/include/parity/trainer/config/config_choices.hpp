// The config keys whose value is one of a closed set (net_name, stem,
// dataset, optimizer, lr_decay_mode, label_smooth_convention,
// loss_scale_manager, device_target, precision, thor_allreduce): the enum
// TrainConfig holds for each, and its one spelling table (config/choice.hpp).
// A config's text is read into these once, when the config is loaded.
#pragma once

#include "parity/trainer/backend/precision.hpp"
#include "parity/trainer/config/choice.hpp"
#include "parity/trainer/loss/softmax_cross_entropy.hpp"
#include "parity/trainer/nn/stem.hpp"
#include "parity/trainer/optim/loss_scaler.hpp"
#include "parity/trainer/optim/lr_schedule.hpp"
#include "parity/trainer/optim/optimizer_choice.hpp"

namespace parity::trainer {

enum class NetName { kResNet18, kResNet34, kResNet50, kResNet101, kResNet152 };
int resnet_depth(NetName net_name);  // 18, 34, 50, 101 or 152

// The dataset a run reads (data/loader_factory.hpp says how).
enum class DatasetKind { kFashionMnist, kCifar10, kImageFolder, kSynthetic };

enum class DeviceTarget { kCpu, kGpu };  // oneDNN, or the CUDA backend

// What THOR's data parallel runs average across ranks (docs/thor.md).
enum class ThorAllReduce {
  kInverses,    // MindSpore's: each rank inverts its own factors, the inverses are averaged
  kStatistics,  // ours: the factors' batch statistics are averaged, then inverted, so N
                // ranks equal one rank on the concatenated batch
};

template <>
const Choices<NetName>& choices_of<NetName>();
template <>
const Choices<Stem>& choices_of<Stem>();
template <>
const Choices<DatasetKind>& choices_of<DatasetKind>();
template <>
const Choices<OptimizerKind>& choices_of<OptimizerKind>();
template <>
const Choices<LrDecayMode>& choices_of<LrDecayMode>();
template <>
const Choices<SmoothingConvention>& choices_of<SmoothingConvention>();
template <>
const Choices<LossScaleKind>& choices_of<LossScaleKind>();
template <>
const Choices<DeviceTarget>& choices_of<DeviceTarget>();
template <>
const Choices<Precision>& choices_of<Precision>();
template <>
const Choices<ThorAllReduce>& choices_of<ThorAllReduce>();

}  // namespace parity::trainer
