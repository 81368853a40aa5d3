// The spelling tables of TrainConfig's closed-set keys: each value's name in
// a config and what it means. Their order is the order refusals and
// `parity-train keys` list them in.
#include "parity/trainer/config/config_choices.hpp"

#include <array>

namespace parity::trainer {
namespace {

constexpr std::array<ChoiceName<NetName>, 5> kNetNames{{
    {NetName::kResNet18, "resnet18", ""},
    {NetName::kResNet34, "resnet34", ""},
    {NetName::kResNet50, "resnet50", ""},
    {NetName::kResNet101, "resnet101", ""},
    {NetName::kResNet152, "resnet152", ""},
}};

constexpr std::array<ChoiceName<Stem>, 3> kStems{{
    {Stem::kAuto, "auto", "3x3 stride-1 stem for images of 32 px or less, ImageNet's otherwise"},
    {Stem::kSmallImage, "small", "3x3 stride 1, no max pool"},
    {Stem::kImageNet, "imagenet", "7x7 + max pool"},
}};

constexpr std::array<ChoiceName<DatasetKind>, 4> kDatasets{{
    {DatasetKind::kFashionMnist, "fashion_mnist", "Debian's dataset-fashion-mnist files"},
    {DatasetKind::kCifar10, "cifar10", "CIFAR-10's binary batches"},
    {DatasetKind::kImageFolder, "imagefolder", "JPEG class folders"},
    {DatasetKind::kSynthetic, "synthetic", "synthetic_size random images"},
}};

constexpr std::array<ChoiceName<OptimizerKind>, 3> kOptimizers{{
    {OptimizerKind::kMomentum, "Momentum", "SGD with momentum"},
    {OptimizerKind::kThor, "Thor", "THOR: second-order preconditioning, then momentum (docs/thor.md)"},
    {OptimizerKind::kLars, "LARS", "loads, training refuses it: not implemented yet"},
}};

constexpr std::array<ChoiceName<LrDecayMode>, 7> kLrDecayModes{{
    {LrDecayMode::kCosine, "cosine", "the seed's"},
    {LrDecayMode::kSteps, "steps", "model_zoo's"},
    {LrDecayMode::kStep, "step", "model_zoo's"},
    {LrDecayMode::kPoly, "poly", "model_zoo's"},
    {LrDecayMode::kLinear, "linear", "model_zoo's"},
    {LrDecayMode::kWarmupCosine, "warmup_cosine", "NVIDIA's"},
    {LrDecayMode::kConstant, "constant", "the steps mode's warmup, then lr_max"},
}};

constexpr std::array<ChoiceName<SmoothingConvention>, 2> kSmoothingConventions{{
    {SmoothingConvention::kPyTorch, "pytorch", "eps spread over all K classes"},
    {SmoothingConvention::kMindSpore, "mindspore", "off-value eps/(K-1)"},
}};

constexpr std::array<ChoiceName<LossScaleKind>, 2> kLossScaleKinds{{
    {LossScaleKind::kFixed, "fixed", "the scale never changes"},
    {LossScaleKind::kDynamic, "dynamic", "down on overflow, up after a window of clean steps"},
}};

constexpr std::array<ChoiceName<DeviceTarget>, 2> kDeviceTargets{{
    {DeviceTarget::kCpu, "CPU", "oneDNN"},
    {DeviceTarget::kGpu, "GPU", "cuDNN and cuBLAS; builds with CUDA"},
}};

// Named as the backends name them (precision.hpp, which CUDA kernels include).
const std::array<ChoiceName<Precision>, 4> kPrecisions{{
    {Precision::kFloat32, precision_name(Precision::kFloat32), ""},
    {Precision::kFloat16, precision_name(Precision::kFloat16),
     "GPU: activations, convolutions and the classifier in 16 bits, master weights, gradients "
     "and BN statistics in float32 (amp_level O2)"},
    {Precision::kBFloat16, precision_name(Precision::kBFloat16), "GPU: as float16"},
    {Precision::kFloat64, precision_name(Precision::kFloat64),
     "CPU: everything in double on plain C++ reference kernels, slow; the exact run that "
     "`parity compare --reference` judges float32 runs by"},
}};

constexpr std::array<ChoiceName<ThorAllReduce>, 2> kThorAllReduces{{
    {ThorAllReduce::kInverses, "inverses",
     "MindSpore's: each rank inverts its own factors, the inverses are averaged"},
    {ThorAllReduce::kStatistics, "statistics",
     "the batch statistics behind the factors are averaged before inverting: N ranks equal one "
     "rank on the concatenated batch"},
}};

}  // namespace

int resnet_depth(NetName net_name) {
  switch (net_name) {
    case NetName::kResNet18:
      return 18;
    case NetName::kResNet34:
      return 34;
    case NetName::kResNet50:
      return 50;
    case NetName::kResNet101:
      return 101;
    case NetName::kResNet152:
      break;
  }
  return 152;
}

template <>
const Choices<NetName>& choices_of<NetName>() {
  static const Choices<NetName> choices{kNetNames};
  return choices;
}

template <>
const Choices<Stem>& choices_of<Stem>() {
  static const Choices<Stem> choices{kStems};
  return choices;
}

template <>
const Choices<DatasetKind>& choices_of<DatasetKind>() {
  static const Choices<DatasetKind> choices{kDatasets};
  return choices;
}

// model_zoo's configs spell it Momentum, momentum or MOMENTUM.
template <>
const Choices<OptimizerKind>& choices_of<OptimizerKind>() {
  static const Choices<OptimizerKind> choices{kOptimizers, LetterCase::kAny};
  return choices;
}

template <>
const Choices<LrDecayMode>& choices_of<LrDecayMode>() {
  static const Choices<LrDecayMode> choices{kLrDecayModes};
  return choices;
}

template <>
const Choices<SmoothingConvention>& choices_of<SmoothingConvention>() {
  static const Choices<SmoothingConvention> choices{kSmoothingConventions};
  return choices;
}

template <>
const Choices<LossScaleKind>& choices_of<LossScaleKind>() {
  static const Choices<LossScaleKind> choices{kLossScaleKinds};
  return choices;
}

template <>
const Choices<DeviceTarget>& choices_of<DeviceTarget>() {
  static const Choices<DeviceTarget> choices{kDeviceTargets};
  return choices;
}

template <>
const Choices<Precision>& choices_of<Precision>() {
  static const Choices<Precision> choices{kPrecisions};
  return choices;
}

template <>
const Choices<ThorAllReduce>& choices_of<ThorAllReduce>() {
  static const Choices<ThorAllReduce> choices{kThorAllReduces};
  return choices;
}

}  // namespace parity::trainer
