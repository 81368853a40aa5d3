// The network a synthetic trace pretends to train: torchvision's ResNet-50
// (bottleneck blocks 3, 4, 6, 3), as its parameters in registration order and
// its module calls in forward order, with what each call costs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace parity::analyzer::synth {

enum class OpType { kConv, kBatchNorm, kRelu, kMaxPool, kAddRelu, kAvgPool, kLinear };

// The op range's name: "conv2d", "batch_norm", ... ("conv2d_backward" in backward).
std::string_view op_name(OpType op);

struct ModelParameter {
  std::string name;  // torchvision's: layer1.0.conv1.weight
  std::vector<std::int64_t> shape;
  std::int64_t bytes = 0;  // float32
};

// One module call of the forward pass; backward calls the same in reverse.
struct ModelLayer {
  std::string module;  // layer1.0.conv1 (a block's relu module is called three times)
  OpType op = OpType::kRelu;
  double flops = 0;                  // multiply-adds x2 per image (convolutions, linear)
  double activation_bytes = 0;       // bytes read and written per image (float16)
  std::int64_t output_elements = 0;  // per image, for launch configurations
  int first_param = -1;              // the parameters the module owns, in registration order
  int param_count = 0;
};

struct Model {
  std::vector<ModelParameter> parameters;
  std::vector<ModelLayer> layers;
};

Model resnet50();

}  // namespace parity::analyzer::synth
