#include "synth_model.hpp"

namespace parity::analyzer::synth {
namespace {

constexpr std::int64_t kImageSize = 224;
constexpr std::int64_t kClasses = 1000;
constexpr double kActivationElementBytes = 2;  // float16 activations (mixed precision)

class ResNetBuilder {
 public:
  Model build() {
    std::int64_t size = conv("conv1", 3, 64, 7, 2, kImageSize);
    batch_norm("bn1", 64, size);
    elementwise("relu", OpType::kRelu, 64, size);
    size /= 2;
    elementwise("maxpool", OpType::kMaxPool, 64, size, 4);
    std::int64_t channels = 64;
    const int blocks[] = {3, 4, 6, 3};
    for (int stage = 0; stage < 4; ++stage) {
      const std::int64_t planes = 64LL << stage;
      for (int block = 0; block < blocks[stage]; ++block) {
        const std::int64_t stride = stage > 0 && block == 0 ? 2 : 1;
        const std::string prefix =
            "layer" + std::to_string(stage + 1) + "." + std::to_string(block) + ".";
        size = bottleneck(prefix, channels, planes, stride, size);
        channels = planes * 4;
      }
    }
    elementwise("avgpool", OpType::kAvgPool, channels, 1, 7 * 7);
    linear("fc", channels, kClasses);
    return std::move(model_);
  }

 private:
  // torchvision v1.5: the stride is on conv2; the downsample branch runs after bn3.
  std::int64_t bottleneck(const std::string& prefix, std::int64_t in, std::int64_t planes,
                          std::int64_t stride, std::int64_t size) {
    conv(prefix + "conv1", in, planes, 1, 1, size);
    batch_norm(prefix + "bn1", planes, size);
    elementwise(prefix + "relu", OpType::kRelu, planes, size);
    const std::int64_t out_size = conv(prefix + "conv2", planes, planes, 3, stride, size);
    batch_norm(prefix + "bn2", planes, out_size);
    elementwise(prefix + "relu", OpType::kRelu, planes, out_size);
    conv(prefix + "conv3", planes, planes * 4, 1, 1, out_size);
    batch_norm(prefix + "bn3", planes * 4, out_size);
    if (stride != 1 || in != planes * 4) {
      conv(prefix + "downsample.0", in, planes * 4, 1, stride, size);
      batch_norm(prefix + "downsample.1", planes * 4, out_size);
    }
    elementwise(prefix + "relu", OpType::kAddRelu, planes * 4, out_size, 2);
    return out_size;
  }

  std::int64_t conv(const std::string& module, std::int64_t in, std::int64_t out,
                    std::int64_t kernel, std::int64_t stride, std::int64_t size) {
    const std::int64_t out_size = size / stride;
    ModelLayer& layer = add_layer(module, OpType::kConv, out * out_size * out_size);
    add_parameter(module + ".weight", {out, in, kernel, kernel});
    layer.param_count = 1;
    layer.flops = 2.0 * double(out * in * kernel * kernel) * double(out_size * out_size);
    layer.activation_bytes =
        double(in * size * size + out * out_size * out_size) * kActivationElementBytes;
    return out_size;
  }

  void batch_norm(const std::string& module, std::int64_t channels, std::int64_t size) {
    ModelLayer& layer = add_layer(module, OpType::kBatchNorm, channels * size * size);
    add_parameter(module + ".weight", {channels});
    add_parameter(module + ".bias", {channels});
    layer.param_count = 2;
    // Statistics, then normalisation: the input is read twice.
    layer.activation_bytes = 3.0 * double(layer.output_elements) * kActivationElementBytes;
  }

  // A memory-bound module: reads `reads` input elements per output element
  // (two inputs for the residual add, a pooling window), writes its output.
  void elementwise(const std::string& module, OpType op, std::int64_t channels, std::int64_t size,
                   double reads = 1) {
    ModelLayer& layer = add_layer(module, op, channels * size * size);
    layer.activation_bytes = (reads + 1) * double(layer.output_elements) * kActivationElementBytes;
  }

  void linear(const std::string& module, std::int64_t in, std::int64_t out) {
    ModelLayer& layer = add_layer(module, OpType::kLinear, out);
    add_parameter(module + ".weight", {out, in});
    add_parameter(module + ".bias", {out});
    layer.param_count = 2;
    layer.flops = 2.0 * double(in * out);
    layer.activation_bytes = double(in + out) * kActivationElementBytes;
  }

  ModelLayer& add_layer(const std::string& module, OpType op, std::int64_t output_elements) {
    ModelLayer layer;
    layer.module = module;
    layer.op = op;
    layer.output_elements = output_elements;
    layer.first_param = static_cast<int>(model_.parameters.size());
    model_.layers.push_back(layer);
    return model_.layers.back();
  }

  void add_parameter(const std::string& name, std::vector<std::int64_t> shape) {
    std::int64_t elements = 1;
    for (const std::int64_t extent : shape) elements *= extent;
    model_.parameters.push_back({name, std::move(shape), elements * 4});
  }

  Model model_;
};

}  // namespace

std::string_view op_name(OpType op) {
  switch (op) {
    case OpType::kConv:
      return "conv2d";
    case OpType::kBatchNorm:
      return "batch_norm";
    case OpType::kRelu:
      return "relu";
    case OpType::kMaxPool:
      return "max_pool";
    case OpType::kAddRelu:
      return "add_relu";
    case OpType::kAvgPool:
      return "avg_pool";
    case OpType::kLinear:
      return "linear";
  }
  return "op";
}

Model resnet50() { return ResNetBuilder().build(); }

}  // namespace parity::analyzer::synth
