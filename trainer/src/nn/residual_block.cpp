#include "parity/trainer/nn/residual_block.hpp"

#include "parity/core/error.hpp"

namespace parity::trainer {
namespace {

Dims conv_output(const Dims& in, const Conv2dSpec& spec) {
  return {in[0], spec.out_channels, spec.output_size(in[2]), spec.output_size(in[3])};
}

const LayerAdjustments kNoAdjustments;

}  // namespace

std::int64_t block_expansion(BlockKind kind) { return kind == BlockKind::kBasic ? 1 : 4; }

ResidualBlock::ResidualBlock(std::string name, Tracing& tracing, Backend& backend,
                             const BlockSpec& spec)
    : Module(std::move(name), tracing), backend_(backend) {
  // (kernel, output channels, stride) of each conv of the main branch; every
  // conv is followed by a batch norm, with the ReLU fused in but for the last.
  struct Conv {
    std::int64_t kernel, channels, stride;
  };
  const std::int64_t out_channels = spec.width * block_expansion(spec.kind);
  const std::vector<Conv> convs =
      spec.kind == BlockKind::kBasic
          ? std::vector<Conv>{{3, spec.width, spec.stride}, {3, spec.width, 1}}
          : std::vector<Conv>{
                {1, spec.width, 1}, {3, spec.width, spec.stride}, {1, out_channels, 1}};

  const LayerAdjustments& adjust = spec.adjustments ? *spec.adjustments : kNoAdjustments;
  if (adjust.keeps_relu(this->name())) add_relu_ = backend.residual_add_relu();
  const auto add_conv = [&](std::vector<std::unique_ptr<Layer>>& branch, const std::string& child,
                            const Conv2dSpec& conv) {
    const Conv2dSpec adjusted = adjust.adjusted(child_name(child), conv);
    branch.push_back(std::make_unique<Layer>(child_name(child), tracing, backend.conv2d(adjusted),
                                             WeightGeometry::conv(adjusted)));
    return conv_output(conv.input, adjusted);
  };
  const auto add_batch_norm = [&](std::vector<std::unique_ptr<Layer>>& branch,
                                  const std::string& child, const BatchNormSpec& bn) {
    branch.push_back(std::make_unique<Layer>(
        child_name(child), tracing, backend.batch_norm(adjust.adjusted(child_name(child), bn)),
        Layer::kBatchNorm));
  };

  Dims shape = spec.input;
  for (std::size_t i = 0; i < convs.size(); ++i) {
    const Conv& c = convs[i];
    const std::string index = std::to_string(i + 1);
    shape = add_conv(main_, "conv" + index,
                     {shape[1], c.channels, c.kernel, c.stride, c.kernel / 2, shape});
    const bool last = i + 1 == convs.size();
    add_batch_norm(main_, "bn" + index, {c.channels, 1e-5, 0.1, !last, shape});
  }
  output_ = shape;
  if (spec.stride != 1 || spec.in_channels != out_channels) {
    if (add_conv(shortcut_, "downsample.0",
                 {spec.in_channels, out_channels, 1, spec.stride, 0, spec.input}) != output_)
      throw Error(child_name("downsample.0") + "'s output does not match the main branch's " +
                      dims_text(output_),
                  "model", "adjust the padding of both branches alike");
    add_batch_norm(shortcut_, "downsample.1", {out_channels, 1e-5, 0.1, false, output_});
  }
  if (add_relu_) name_op_ranges();
}

std::string ResidualBlock::last_batch_norm_weight() const {
  return main_.back()->name() + ".weight";
}

void ResidualBlock::collect(ModelState& state) {
  for (auto& layer : main_) layer->collect(state);
  for (auto& layer : shortcut_) layer->collect(state);
}

Tensor ResidualBlock::run_forward(const Tensor& x, Mode mode) {
  Tensor main = x;
  for (auto& layer : main_) main = layer->forward(main, mode);
  Tensor identity = x;
  for (auto& layer : shortcut_) identity = layer->forward(identity, mode);
  if (!add_relu_) return backend_.add(main, identity);
  const auto range = op_range(Pass::kForward);
  return add_relu_->forward(main, identity, mode);
}

Tensor ResidualBlock::run_backward(const Tensor& dy) {
  Tensor d_sum = dy;  // the gradient of a plain sum, without the ReLU
  if (add_relu_) {
    const auto range = op_range(Pass::kBackward);
    d_sum = add_relu_->backward(dy);
  }
  Tensor d_main = d_sum;
  for (auto it = main_.rbegin(); it != main_.rend(); ++it) d_main = (*it)->backward(d_main);
  Tensor d_shortcut = d_sum;
  for (auto it = shortcut_.rbegin(); it != shortcut_.rend(); ++it)
    d_shortcut = (*it)->backward(d_shortcut);
  // The block's input fed both branches: its gradient is the sum.
  return backend_.add(d_main, d_shortcut);
}

}  // namespace parity::trainer
