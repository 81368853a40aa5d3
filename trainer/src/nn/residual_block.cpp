#include "parity/trainer/nn/residual_block.hpp"

namespace parity::trainer {
namespace {

Dims conv_output(const Dims& in, std::int64_t channels, std::int64_t kernel, std::int64_t stride) {
  const auto out = [&](std::int64_t size) { return (size + 2 * (kernel / 2) - kernel) / stride + 1; };
  return {in[0], channels, out(in[2]), out(in[3])};
}

}  // namespace

std::int64_t block_expansion(BlockKind kind) { return kind == BlockKind::kBasic ? 1 : 4; }

ResidualBlock::ResidualBlock(std::string name, Tracing& tracing, Backend& backend,
                             const BlockSpec& spec)
    : Module(std::move(name), tracing), backend_(backend), add_relu_(backend.residual_add_relu()) {
  // (kernel, output channels, stride) of each conv of the main branch; every
  // conv is followed by a batch norm, with the ReLU fused in but for the last.
  struct Conv {
    std::int64_t kernel, channels, stride;
  };
  const std::int64_t out_channels = spec.width * block_expansion(spec.kind);
  const std::vector<Conv> convs =
      spec.kind == BlockKind::kBasic
          ? std::vector<Conv>{{3, spec.width, spec.stride}, {3, spec.width, 1}}
          : std::vector<Conv>{{1, spec.width, 1}, {3, spec.width, spec.stride}, {1, out_channels, 1}};

  Dims shape = spec.input;
  for (std::size_t i = 0; i < convs.size(); ++i) {
    const Conv& c = convs[i];
    const std::string index = std::to_string(i + 1);
    main_.push_back(std::make_unique<Layer>(
        child_name("conv" + index), tracing,
        backend.conv2d({shape[1], c.channels, c.kernel, c.stride, c.kernel / 2, shape, true})));
    shape = conv_output(shape, c.channels, c.kernel, c.stride);
    const bool last = i + 1 == convs.size();
    main_.push_back(std::make_unique<Layer>(
        child_name("bn" + index), tracing,
        backend.batch_norm({c.channels, 1e-5, 0.1, !last, shape}), Layer::kBatchNorm));
  }
  output_ = shape;
  if (spec.stride != 1 || spec.in_channels != out_channels) {
    shortcut_.push_back(std::make_unique<Layer>(
        child_name("downsample.0"), tracing,
        backend.conv2d({spec.in_channels, out_channels, 1, spec.stride, 0, spec.input, true})));
    shortcut_.push_back(std::make_unique<Layer>(
        child_name("downsample.1"), tracing,
        backend.batch_norm({out_channels, 1e-5, 0.1, false, output_}), Layer::kBatchNorm));
  }
}

std::string ResidualBlock::last_batch_norm_weight() const { return main_.back()->name() + ".weight"; }

void ResidualBlock::collect(ModelState& state) {
  for (auto& layer : main_) layer->collect(state);
  for (auto& layer : shortcut_) layer->collect(state);
}

Tensor ResidualBlock::run_forward(const Tensor& x, Mode mode) {
  Tensor main = x;
  for (auto& layer : main_) main = layer->forward(main, mode);
  Tensor identity = x;
  for (auto& layer : shortcut_) identity = layer->forward(identity, mode);
  return add_relu_->forward(main, identity, mode);
}

Tensor ResidualBlock::run_backward(const Tensor& dy) {
  const Tensor d_sum = add_relu_->backward(dy);
  Tensor d_main = d_sum;
  for (auto it = main_.rbegin(); it != main_.rend(); ++it) d_main = (*it)->backward(d_main);
  Tensor d_shortcut = d_sum;
  for (auto it = shortcut_.rbegin(); it != shortcut_.rend(); ++it)
    d_shortcut = (*it)->backward(d_shortcut);
  // The block's input fed both branches: its gradient is the sum.
  return backend_.add(d_main, d_shortcut);
}

}  // namespace parity::trainer
