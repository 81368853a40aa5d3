#include "parity/trainer/debug/planted_faults.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>

#include "parity/core/error.hpp"

namespace parity::trainer {
namespace {

struct BugKindName {
  PlantedBug::Kind kind;
  std::string_view name;
  std::string_view default_layer;
};
// Default layers (ResNet-50's): the first stride-2 3x3 conv, the batch norm
// closing a block (small outputs, so epsilon shows),
// the first square 3x3 conv (64 in, 64 out), a block with no downsample
// (its ReLU sits between its bn3 and the next block's conv1), and for the
// running statistics two batch norms in different stages.
constexpr std::array<BugKindName, 7> kBugKinds{{
    {PlantedBug::kSamePadding, "same-pad", "layer2.0.conv2"},
    {PlantedBug::kBatchNormEpsilon, "bn-eps", "layer2.0.bn3"},
    {PlantedBug::kLabelSmoothing, "label-smooth", ""},
    {PlantedBug::kTransposedWeight, "transpose-weight", "layer1.0.conv2"},
    {PlantedBug::kDroppedRelu, "drop-relu", "layer1.1"},
    {PlantedBug::kBatchNormMomentum, "bn-momentum", "layer2.0.bn2"},
    {PlantedBug::kFrozenBatchNormStats, "frozen-bn-stats", "layer3.0.bn1"},
}};

// MindSpore's BatchNorm2d momentum weighs the running value, PyTorch's the
// batch: running = momentum * running + (1 - momentum) * batch there, so
// MindSpore's default 0.9 is PyTorch's 0.1. Copied verbatim, it is 0.9 here.
constexpr double kMindSporeMomentum = 0.9;

const BugKindName& kind_name(PlantedBug::Kind kind) {
  return *std::find_if(kBugKinds.begin(), kBugKinds.end(),
                       [kind](const auto& k) { return k.kind == kind; });
}

// What a bug of this kind is planted in, for errors.
std::string_view layer_kind(PlantedBug::Kind kind) {
  switch (kind) {
    case PlantedBug::kBatchNormEpsilon:
    case PlantedBug::kBatchNormMomentum:
    case PlantedBug::kFrozenBatchNormStats:
      return "batch norm";
    case PlantedBug::kDroppedRelu:
      return "residual block";
    default:
      return "convolution";
  }
}

// MindSpore's pad_mode="same": the output has ceil(size / stride) elements
// and the padding that needs goes mostly after the data (begin = total / 2).
std::pair<std::int64_t, std::int64_t> same_padding(std::int64_t size, std::int64_t kernel,
                                                   std::int64_t stride) {
  const std::int64_t out = (size + stride - 1) / stride;
  const std::int64_t total = std::max<std::int64_t>((out - 1) * stride + kernel - size, 0);
  return {total / 2, total - total / 2};
}

}  // namespace

PlantedBug PlantedBug::parse(std::string_view text) {
  const std::size_t colon = text.find(':');
  const std::string_view kind = text.substr(0, colon);
  for (const BugKindName& k : kBugKinds) {
    if (k.name != kind) continue;
    PlantedBug bug{k.kind, std::string(k.default_layer)};
    if (colon != std::string_view::npos) {
      if (k.kind == kLabelSmoothing)
        throw Error("label-smooth is planted in the loss, not in a layer", "--plant-bug",
                    "write label-smooth");
      bug.layer = text.substr(colon + 1);
      if (bug.layer.empty())
        throw Error("no layer after '" + std::string(kind) + ":'", "--plant-bug",
                    "name the layer (" + std::string(k.name) + ":" + std::string(k.default_layer) +
                        ") or leave out the colon for that default");
    }
    return bug;
  }
  throw Error(
      "unknown bug '" + std::string(kind) + "'", "--plant-bug",
      "same-pad[:CONV], bn-eps[:BN], label-smooth, transpose-weight[:CONV], drop-relu[:BLOCK], "
      "bn-momentum[:BN], frozen-bn-stats[:BN]");
}

std::string PlantedBug::text() const {
  return std::string(kind_name(kind).name) + (layer.empty() ? "" : ":" + layer);
}

void BugPlanter::plant(ResNetOptions& model, LossOptions& loss) {
  for (const PlantedBug& bug : bugs_)
    if (bug.kind == PlantedBug::kLabelSmoothing) loss.convention = SmoothingConvention::kMindSpore;
  const auto wanted = [this](PlantedBug::Kind kind, const std::string& name) {
    return std::any_of(bugs_.begin(), bugs_.end(),
                       [&](const PlantedBug& b) { return b.kind == kind && b.layer == name; });
  };
  auto previous_conv = model.adjustments.conv;
  model.adjustments.conv = [this, wanted, previous_conv](const std::string& name,
                                                         Conv2dSpec& spec) {
    if (previous_conv) previous_conv(name, spec);
    if (wanted(PlantedBug::kSamePadding, name)) {
      if (spec.stride != 2)
        throw Error(name + " has stride " + std::to_string(spec.stride) + ", not 2",
                    "--plant-bug same-pad",
                    "choose a stride-2 convolution (layer2.0.conv2, layer3.0.conv2, ...)");
      const auto [begin, end] = same_padding(spec.input.at(2), spec.kernel, spec.stride);
      if (begin == spec.padding && end == spec.padding)
        throw Error("at input " + dims_text(spec.input) + ", \"same\" padding of " + name +
                        " is symmetric: nothing would change",
                    "--plant-bug same-pad", "use an even image size");
      spec.padding = begin;
      spec.padding_end = end;
      planted_.push_back(name);
    }
    if (wanted(PlantedBug::kTransposedWeight, name)) {
      if (spec.in_channels != spec.out_channels)
        throw Error(
            name + " is " + std::to_string(spec.in_channels) + " -> " +
                std::to_string(spec.out_channels) + " channels: its transpose has another shape",
            "--plant-bug transpose-weight", "choose a convolution with as many inputs as outputs");
      planted_.push_back(name);
    }
  };
  auto previous_bn = model.adjustments.batch_norm;
  model.adjustments.batch_norm = [this, wanted, previous_bn](const std::string& name,
                                                             BatchNormSpec& spec) {
    if (previous_bn) previous_bn(name, spec);
    if (wanted(PlantedBug::kBatchNormEpsilon, name)) {
      spec.eps = 1e-3;
      planted_.push_back(name);
    }
    if (wanted(PlantedBug::kBatchNormMomentum, name)) {
      spec.momentum = kMindSporeMomentum;
      planted_.push_back(name);
    }
    // Momentum 0: running = running, the update left out (forward and
    // backward use the batch's statistics in training, so only the running
    // ones, and eval, see it).
    if (wanted(PlantedBug::kFrozenBatchNormStats, name)) {
      spec.momentum = 0;
      planted_.push_back(name);
    }
  };
  auto previous_relu = model.adjustments.block_relu;
  model.adjustments.block_relu = [this, wanted, previous_relu](const std::string& name) {
    const bool kept = !previous_relu || previous_relu(name);
    if (!wanted(PlantedBug::kDroppedRelu, name)) return kept;
    planted_.push_back(name);
    return false;
  };
}

void BugPlanter::check_planted() const {
  for (const PlantedBug& bug : bugs_) {
    if (bug.kind == PlantedBug::kLabelSmoothing) continue;
    if (std::find(planted_.begin(), planted_.end(), bug.layer) == planted_.end())
      throw Error(
          "the model has no " + std::string(layer_kind(bug.kind)) + " named '" + bug.layer + "'",
          "--plant-bug " + bug.text(),
          "use torchvision's names, e.g. layer2.0.conv2 (a layer) or layer1.1 (a block)");
  }
}

void BugPlanter::transpose_weights(Backend& backend, ModelState& state) const {
  for (const PlantedBug& bug : bugs_) {
    if (bug.kind != PlantedBug::kTransposedWeight) continue;
    const std::string name = bug.layer + ".weight";
    const auto p = std::find_if(state.parameters.begin(), state.parameters.end(),
                                [&](const Parameter& q) { return q.name == name; });
    if (p == state.parameters.end())
      throw Error("no parameter " + name, "--plant-bug " + bug.text(),
                  "use a convolution's torchvision name");
    const std::int64_t channels = p->shape[0], window = p->shape[2] * p->shape[3];
    const std::vector<float> w = backend.to_host(p->tensors->value);
    std::vector<float> t(w.size());
    for (std::int64_t o = 0; o < channels; ++o)
      for (std::int64_t i = 0; i < channels; ++i)
        for (std::int64_t k = 0; k < window; ++k)
          t[std::size_t((i * channels + o) * window + k)] =
              w[std::size_t((o * channels + i) * window + k)];
    backend.write(p->tensors->value, t);
  }
}

PlantedNan PlantedNan::parse(std::string_view text) {
  const std::size_t at = text.rfind('@');
  PlantedNan target;
  target.layer = text.substr(0, at);
  const std::string_view step =
      at == std::string_view::npos ? std::string_view() : text.substr(at + 1);
  const auto [end, error] = std::from_chars(step.data(), step.data() + step.size(), target.step);
  if (at == std::string_view::npos || target.layer.empty() || step.empty() ||
      error != std::errc() || end != step.data() + step.size() || target.step < 0)
    throw Error("'" + std::string(text) + "' is not LAYER@STEP", "--plant-nan",
                "e.g. layer3.1.conv2@1: NaN in that layer's output at step 1");
  return target;
}

void NanPlanter::forward_output(const Module& module, const Tensor& output) {
  if (step_ != target_.step || module.name() != target_.layer) return;
  std::vector<float> values = backend_.to_host(output);
  values.at(0) = std::numeric_limits<float>::quiet_NaN();
  backend_.write(output, values);
  planted_ = true;
}

}  // namespace parity::trainer
