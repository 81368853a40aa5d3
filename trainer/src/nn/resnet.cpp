#include "parity/trainer/nn/resnet.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "parity/core/error.hpp"
#include "parity/trainer/data/random.hpp"
#include "parity/trainer/nn/residual_block.hpp"

namespace parity::trainer {
namespace {

struct Architecture {
  int depth;
  BlockKind kind;
  std::array<int, 4> blocks;
};

constexpr std::array<Architecture, 5> kArchitectures{{
    {18, BlockKind::kBasic, {2, 2, 2, 2}},
    {34, BlockKind::kBasic, {3, 4, 6, 3}},
    {50, BlockKind::kBottleneck, {3, 4, 6, 3}},
    {101, BlockKind::kBottleneck, {3, 4, 23, 3}},
    {152, BlockKind::kBottleneck, {3, 8, 36, 3}},
}};

const Architecture& architecture(int depth) {
  for (const auto& a : kArchitectures)
    if (a.depth == depth) return a;
  throw Error("no ResNet of depth " + std::to_string(depth), "model",
              "depths: 18, 34, 50, 101, 152");
}

// A standard normal sample from two uniforms (Box-Muller), so initial weights
// do not depend on the C++ library's distributions.
double normal(Rng& rng) {
  const double u1 = 1.0 - rng.uniform();  // (0, 1]: log stays finite
  const double u2 = rng.uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace

bool uses_small_image_stem(const Dims& input, Stem stem) {
  if (stem != Stem::kAuto) return stem == Stem::kSmallImage;
  return input.at(2) <= 32 && input.at(3) <= 32;
}

ResNet::ResNet(Backend& backend, const ResNetOptions& options, Tracing& tracing)
    : options_(options), root_("", tracing) {
  const Architecture& arch = architecture(options.depth);
  if (options.input.size() != 4 || options.input[1] != 3)
    throw Error("ResNet input " + dims_text(options.input) + " is not [N, 3, H, W]", "model");
  if (options.num_classes < 1) throw Error("a ResNet needs at least one class", "model");
  const bool small = uses_small_image_stem(options.input, options.stem);

  Dims shape = options.input;
  const std::int64_t stem_kernel = small ? 3 : 7, stem_stride = small ? 1 : 2;
  const LayerAdjustments& adjust = options.adjustments;
  const Conv2dSpec stem_conv =
      adjust.adjusted("conv1", {3, 64, stem_kernel, stem_stride, stem_kernel / 2, shape, false});
  root_.add(std::make_unique<Layer>("conv1", tracing, backend.conv2d(stem_conv),
                                    WeightGeometry::conv(stem_conv)));
  const auto after_stride = [](std::int64_t size, std::int64_t kernel, std::int64_t stride) {
    return (size + 2 * (kernel / 2) - kernel) / stride + 1;
  };
  shape = {shape[0], 64, stem_conv.output_size(shape[2]), stem_conv.output_size(shape[3])};
  root_.add(std::make_unique<Layer>(
      "bn1", tracing, backend.batch_norm(adjust.adjusted("bn1", {64, 1e-5, 0.1, true, shape})),
      Layer::kBatchNorm));
  if (!small) {
    root_.add(std::make_unique<Layer>("maxpool", tracing, backend.max_pool({3, 2, 1, shape})));
    shape = {shape[0], 64, after_stride(shape[2], 3, 2), after_stride(shape[3], 3, 2)};
  }

  std::vector<std::string> zeroed;
  std::int64_t channels = 64;
  for (int stage = 0; stage < 4; ++stage) {
    const std::string stage_name = "layer" + std::to_string(stage + 1);
    auto sequence = std::make_unique<Sequential>(stage_name, tracing);
    const std::int64_t width = 64 << stage;
    for (int b = 0; b < arch.blocks[stage]; ++b) {
      const BlockSpec spec{arch.kind, channels, width, (b == 0 && stage > 0) ? 2 : 1,
                           shape,     &adjust};
      auto block = std::make_unique<ResidualBlock>(sequence->next_child_name(std::to_string(b)),
                                                   tracing, backend, spec);
      shape = block->output_dims();
      channels = shape[1];
      zeroed.push_back(block->last_batch_norm_weight());
      sequence->add(std::move(block));
    }
    root_.add(std::move(sequence));
  }
  root_.add(std::make_unique<Layer>("avgpool", tracing, backend.global_avg_pool()));
  root_.add(std::make_unique<Layer>(
      "fc", tracing, backend.linear({channels, options.num_classes, {shape[0], channels, 1, 1}}),
      WeightGeometry::linear()));

  root_.collect(state_);
  if (!options.zero_init_residual) zeroed.clear();
  initialise(backend, zeroed);
}

void ResNet::initialise(Backend& backend, const std::vector<std::string>& zeroed_weights) {
  Rng rng(options_.seed * 0x9E3779B97F4A7C15ull + 0x5EED);
  // fc.weight is [classes, features]; its fan-in bounds fc.weight and fc.bias.
  const auto fc_weight = std::find_if(state_.parameters.begin(), state_.parameters.end(),
                                      [](const Parameter& p) { return p.name == "fc.weight"; });
  const std::int64_t fc_in = fc_weight->shape.at(1);
  for (const Parameter& p : state_.parameters) {
    const auto count = static_cast<std::size_t>(element_count(p.shape));
    std::vector<float> values(count);
    if (p.shape.size() == 4) {
      // kaiming_normal_(mode="fan_out", nonlinearity="relu")
      const double std_dev = std::sqrt(2.0 / double(p.shape[0] * p.shape[2] * p.shape[3]));
      for (auto& v : values) v = float(std_dev * normal(rng));
    } else if (p.name.starts_with("fc.")) {
      // nn.Linear's reset_parameters: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for both
      const double bound = 1.0 / std::sqrt(double(fc_in));
      for (auto& v : values) v = float(rng.uniform(-bound, bound));
    } else {
      const bool is_weight = p.name.ends_with(".weight");
      const bool zero =
          std::find(zeroed_weights.begin(), zeroed_weights.end(), p.name) != zeroed_weights.end();
      std::fill(values.begin(), values.end(), is_weight && !zero ? 1.0f : 0.0f);
    }
    backend.write(p.tensors->value, values);
  }
}

Tensor ResNet::forward(const Tensor& images, Mode mode) { return root_.forward(images, mode); }

void ResNet::backward(const Tensor& grad_logits) { root_.backward(grad_logits); }

}  // namespace parity::trainer
