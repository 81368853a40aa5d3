#include "synth_setup.hpp"

#include <string>

#include "synth_random.hpp"

namespace parity::analyzer::synth {
namespace {

// A GPU step of about 100 ms (ResNet-50, batch 256, mixed precision on one
// H100-class GPU) and a CPU step of about 1 s (batch 32 through oneDNN).
constexpr DeviceTiming kGpuTiming{.batch = 256,
                                  .forward_ns = 30e6,
                                  .flop_per_byte = 80,
                                  .update_bytes_per_ns = 2500,
                                  .allreduce_bytes_per_ns = 20,  // two nodes, 200 Gb/s InfiniBand
                                  .load_batch_ns = 80e6,
                                  .setup_ns = 50'000'000,
                                  .iteration_gap_ns = 40'000};
constexpr DeviceTiming kCpuTiming{.batch = 32,
                                  .forward_ns = 300e6,
                                  .flop_per_byte = 10,
                                  .update_bytes_per_ns = 20,
                                  .allreduce_bytes_per_ns = 2.5,
                                  .load_batch_ns = 800e6,
                                  .setup_ns = 500'000'000,
                                  .iteration_gap_ns = 150'000};

constexpr std::int64_t kBucketCapBytes = 25LL << 20;  // DistributedDataParallel's default

// Backward over forward time: convolutions and linear layers compute the
// input's and the weight's gradients (the first convolution only the weight's).
double backward_ratio(const ModelLayer& layer) {
  switch (layer.op) {
    case OpType::kConv:
      return layer.first_param == 0 ? 1.0 : 2.0;
    case OpType::kLinear:
    case OpType::kBatchNorm:
    case OpType::kMaxPool:
      return 2.0;
    case OpType::kRelu:
    case OpType::kAddRelu:
      return 1.5;
    case OpType::kAvgPool:
      return 1.0;
  }
  return 1.0;
}

std::vector<Bucket> make_buckets(const Model& model) {
  std::vector<Bucket> buckets;
  Bucket bucket;
  bucket.last_param = static_cast<int>(model.parameters.size()) - 1;
  for (int param = bucket.last_param; param >= 0; --param) {
    bucket.bytes += model.parameters[static_cast<std::size_t>(param)].bytes;
    if (bucket.bytes >= kBucketCapBytes || param == 0) {
      bucket.first_param = param;
      buckets.push_back(bucket);
      bucket = Bucket{0, param - 1, 0};
    }
  }
  return buckets;
}

}  // namespace

SynthSetup::SynthSetup(const SynthOptions& options)
    : gpu(options.gpu),
      world_size(options.ranks),
      timing(options.gpu ? kGpuTiming : kCpuTiming),
      model(resnet50()) {
  SynthRandom random(derive_seed(options.seed, kSetupStream));
  ids = {names.intern("step"),
         names.intern("data_wait"),
         names.intern("forward"),
         names.intern("backward"),
         names.intern("optimizer"),
         names.intern("reorder"),
         names.intern("load_batch"),
         names.intern("sgd_update"),
         names.intern("amp_unscale"),
         names.intern("cudaLaunchKernel"),
         names.intern("cudaMemcpyAsync"),
         names.intern("cudaStreamSynchronize"),
         names.intern("Memcpy HtoD (Pinned -> Device)"),
         names.intern("grad_overflow")};

  double raw_forward = 0;
  for (const ModelLayer& layer : model.layers)
    raw_forward += layer.flops + layer.activation_bytes * timing.flop_per_byte;
  const double ns_per_unit = timing.forward_ns / raw_forward;
  for (const ModelLayer& layer : model.layers) {
    const std::string op(op_name(layer.op));
    layer_names.push_back(
        {names.intern(layer.module), names.intern(op), names.intern(op + "_backward")});
    const double forward =
        (layer.flops + layer.activation_bytes * timing.flop_per_byte) * ns_per_unit;
    forward_ns.push_back(forward);
    backward_ns.push_back(forward * backward_ratio(layer));
    reorder_ns.push_back(layer.activation_bytes * timing.flop_per_byte * ns_per_unit);
  }

  // A few layout conversions a step: the network's input, and one convolution
  // each way whose algorithm wants another layout.
  const std::size_t layers = model.layers.size();
  reorder_forward.assign(layers, false);
  reorder_backward.assign(layers, false);
  reorder_forward[0] = true;
  const auto random_conv = [&] {
    while (true) {
      const auto layer = static_cast<std::size_t>(random.uniform_int(1, std::int64_t(layers) - 1));
      if (model.layers[layer].op == OpType::kConv) return layer;
    }
  };
  reorder_forward[random_conv()] = true;
  reorder_backward[random_conv()] = true;

  std::int64_t parameter_bytes = 0;
  for (const ModelParameter& parameter : model.parameters) {
    // Read weight, gradient and momentum; write weight and momentum.
    update_ns.push_back(5.0 * double(parameter.bytes) / timing.update_bytes_per_ns +
                        (gpu ? 1'500 : 20'000));
    parameter_bytes += parameter.bytes;
  }
  unscale_ns = 2.0 * double(parameter_bytes) / timing.update_bytes_per_ns;
  batch_bytes = timing.batch * 3 * 224 * 224 * 2;  // float16 images

  if (gpu) kernels = plan_kernels(model, timing.batch, names, random);
  buckets = make_buckets(model);
  bucket_of_param.resize(model.parameters.size());
  for (std::size_t b = 0; b < buckets.size(); ++b)
    for (int param = buckets[b].first_param; param <= buckets[b].last_param; ++param)
      bucket_of_param[static_cast<std::size_t>(param)] = static_cast<int>(b);
}

}  // namespace parity::analyzer::synth
