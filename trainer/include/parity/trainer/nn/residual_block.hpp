// ResidualBlock: torchvision's BasicBlock (two 3x3 convs) and Bottleneck
// (1x1, 3x3, 1x1 with 4x expansion; v1.5: the stride is on the 3x3 conv),
// y = relu(main(x) + shortcut(x)), the shortcut being x itself or
// downsample.0 (1x1 conv, stride) + downsample.1 (batch norm). A block whose
// ReLU an adjustment drops (`--plant-bug drop-relu`) computes main + shortcut
// and, like PyTorch's dump hooks, which see a block's output through its
// ReLU, records no output of its own.
#pragma once

#include <memory>
#include <vector>

#include "parity/trainer/nn/layer.hpp"
#include "parity/trainer/nn/layer_adjustments.hpp"

namespace parity::trainer {

enum class BlockKind { kBasic, kBottleneck };

struct BlockSpec {
  BlockKind kind = BlockKind::kBottleneck;
  std::int64_t in_channels = 0, width = 0, stride = 1;  // width: the 3x3 convs' channels
  Dims input;                                           // [N, C, H, W]
  const LayerAdjustments* adjustments = nullptr;        // none: the reference block
};

std::int64_t block_expansion(BlockKind kind);  // 1 (basic) or 4 (bottleneck)

class ResidualBlock final : public Module {
 public:
  ResidualBlock(std::string name, Tracing& tracing, Backend& backend, const BlockSpec& spec);
  void collect(ModelState& state) override;
  std::string_view op_kind() const override {
    return add_relu_ ? add_relu_->kind() : std::string_view();
  }
  const Dims& output_dims() const { return output_; }
  // The batch norm whose weight zero_init_residual sets to zero.
  std::string last_batch_norm_weight() const;

 private:
  Tensor run_forward(const Tensor& x, Mode mode) override;
  Tensor run_backward(const Tensor& dy) override;

  Backend& backend_;
  std::vector<std::unique_ptr<Layer>> main_, shortcut_;
  std::unique_ptr<ResidualOp> add_relu_;  // null when the ReLU is dropped
  Dims output_;
};

}  // namespace parity::trainer
