#include "synth_kernels.hpp"

#include <algorithm>
#include <string>

namespace parity::analyzer::synth {
namespace {

using profiler::LaunchConfig;

std::uint32_t blocks_for(double work_items, double per_block) {
  return static_cast<std::uint32_t>(std::clamp(work_items / per_block, 1.0, 2147483647.0));
}

// Hopper implicit-GEMM / GEMM kernels: 128x128 output tiles, one warpgroup of
// three warps' worth of threads, most of shared memory.
LaunchConfig gemm_config(double rows, double columns) {
  return {{blocks_for(rows, 128), blocks_for(columns, 128), 1}, {384, 1, 1}, 218112, 168};
}
// PyTorch's vectorized elementwise kernels: 128 threads, 4 elements each.
LaunchConfig elementwise_config(double elements) {
  return {{blocks_for(elements, 512), 1, 1}, {128, 1, 1}, 0, 24};
}
LaunchConfig reduction_config(double elements) {
  return {{blocks_for(elements, 4096), 1, 1}, {512, 1, 1}, 8192, 40};
}

class Planner {
 public:
  Planner(const Model& model, std::int64_t batch, Names& names, SynthRandom& random)
      : model_(model), batch_(double(batch)), names_(names), random_(random) {}

  KernelPlans plan() {
    KernelPlans plans;
    for (const ModelLayer& layer : model_.layers) {
      plans.forward.push_back(forward(layer));
      plans.backward.push_back(backward(layer));
    }
    plans.reorder = {kernel("nchwToNhwcKernel", 1, elementwise_config(1e6 * batch_))};
    plans.unscale = {kernel("at::native::amp_non_finite_check_and_unscale_cuda_kernel", 1,
                            elementwise_config(25.6e6))};
    for (const ModelParameter& parameter : model_.parameters) {
      const double elements = double(parameter.bytes / 4);
      KernelPlan update;
      // Weight decay applies to weights, not to batch-norm parameters and biases.
      if (parameter.shape.size() > 1)
        update.push_back(kernel("at::native::vectorized_elementwise_kernel<4, add_kernel>", 0.4,
                                elementwise_config(elements)));
      update.push_back(kernel("at::native::vectorized_elementwise_kernel<4, sgd_momentum_kernel>",
                              update.empty() ? 1.0 : 0.6, elementwise_config(elements)));
      plans.updates.push_back(std::move(update));
    }
    return plans;
  }

 private:
  KernelPlan forward(const ModelLayer& layer) {
    const double elements = double(layer.output_elements) * batch_;
    switch (layer.op) {
      case OpType::kConv: {
        const double channels = double(model_.parameters[layer.first_param].shape[0]);
        KernelPlan plan = {
            kernel(conv_name("fprop", layer), 1, gemm_config(elements / channels, channels))};
        if (random_.chance(0.35)) add_minor(plan, "nchwToNhwcKernel", elementwise_config(elements));
        if (random_.chance(0.2))
          add_minor(plan, "cudnn::splitKreduce_kernel<float, __half, float>",
                    reduction_config(elements));
        return plan;
      }
      case OpType::kBatchNorm:
        return {kernel("cudnn::bn_fw_tr_1C11_kernel_NCHW<__half, float, 512, true, 1>", 1,
                       reduction_config(elements))};
      case OpType::kRelu:
        return {kernel("at::native::vectorized_elementwise_kernel<4, clamp_min_scalar_kernel>", 1,
                       elementwise_config(elements))};
      case OpType::kMaxPool:
        return {kernel("at::native::max_pool_forward_nchw<c10::Half, float>", 1,
                       elementwise_config(elements))};
      case OpType::kAddRelu:
        return {kernel("at::native::vectorized_elementwise_kernel<4, add_relu_kernel>", 1,
                       elementwise_config(elements))};
      case OpType::kAvgPool:
        return {kernel("at::native::reduce_kernel<512, 1, mean_kernel>", 1,
                       reduction_config(elements * 49))};
      case OpType::kLinear: {
        KernelPlan plan = {kernel(kLinearGemm, 1, gemm_config(batch_, elements / batch_))};
        add_minor(plan, "at::native::vectorized_elementwise_kernel<4, add_bias_kernel>",
                  elementwise_config(elements));
        return plan;
      }
    }
    return {};
  }

  KernelPlan backward(const ModelLayer& layer) {
    const double elements = double(layer.output_elements) * batch_;
    switch (layer.op) {
      case OpType::kConv: {
        const double channels = double(model_.parameters[layer.first_param].shape[0]);
        const LaunchConfig config = gemm_config(elements / channels, channels);
        // The first convolution's input needs no gradient: no dgrad kernel.
        KernelPlan plan;
        if (layer.first_param > 0) plan.push_back(kernel(conv_name("dgrad", layer), 0.5, config));
        plan.push_back(kernel(conv_name("wgrad", layer), plan.empty() ? 1.0 : 0.5, config));
        if (random_.chance(0.3))
          add_minor(plan, "cudnn::splitKreduce_kernel<float, __half, float>",
                    reduction_config(elements));
        return plan;
      }
      case OpType::kBatchNorm: {
        KernelPlan plan = {
            kernel("cudnn::bn_bw_1C11_kernel_new<__half, float, float2, 512, true, 1>", 1,
                   reduction_config(elements))};
        if (random_.chance(0.25))
          add_minor(plan, "at::native::vectorized_elementwise_kernel<4, add_kernel>",
                    elementwise_config(elements));
        return plan;
      }
      case OpType::kRelu:
        return {kernel("at::native::vectorized_elementwise_kernel<4, threshold_backward_kernel>", 1,
                       elementwise_config(elements))};
      case OpType::kMaxPool:
        return {kernel("at::native::max_pool_backward_nchw<c10::Half, float>", 1,
                       elementwise_config(elements * 4))};
      case OpType::kAddRelu: {
        KernelPlan plan = {
            kernel("at::native::vectorized_elementwise_kernel<4, threshold_backward_kernel>", 1,
                   elementwise_config(elements))};
        add_minor(plan, "at::native::vectorized_elementwise_kernel<4, add_kernel>",
                  elementwise_config(elements));
        return plan;
      }
      case OpType::kAvgPool:
        return {kernel("at::native::elementwise_kernel<128, 2, avg_pool_backward_kernel>", 1,
                       elementwise_config(elements * 49))};
      case OpType::kLinear: {
        const LaunchConfig config = gemm_config(batch_, elements / batch_);
        KernelPlan plan = {kernel(kLinearGemm, 0.5, config), kernel(kLinearGemm, 0.5, config)};
        add_minor(plan, "at::native::reduce_kernel<512, 1, sum_kernel>",
                  reduction_config(elements));
        return plan;
      }
    }
    return {};
  }

  // Convolution kernels come in a few tile shapes; each layer keeps the one it drew.
  std::string conv_name(const char* pass, const ModelLayer& layer) {
    static constexpr const char* kTiles[] = {"128x128x64", "128x256x64", "256x128x64"};
    const char* tile = kTiles[random_.uniform_int(0, layer.output_elements > 200'000 ? 2 : 1)];
    return std::string("sm90_xmma_") + pass +
           "_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize" + tile +
           "_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cudnn";
  }

  KernelLaunch kernel(const std::string& name, double share, const LaunchConfig& config) {
    return {names_.intern(name), share, config};
  }

  // A small helper kernel takes 5-15% of the op's time from the others.
  void add_minor(KernelPlan& plan, const std::string& name, const LaunchConfig& config) {
    const double share = random_.uniform(0.05, 0.15);
    for (KernelLaunch& launch : plan) launch.share *= 1 - share;
    plan.push_back(kernel(name, share, config));
  }

  static constexpr const char* kLinearGemm =
      "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize64x128x64_warpgroupsize1x1x1_execute_"
      "segment_k_off_kernel__5x_cublas";

  const Model& model_;
  double batch_;
  Names& names_;
  SynthRandom& random_;
};

}  // namespace

KernelPlans plan_kernels(const Model& model, std::int64_t batch, Names& names,
                         SynthRandom& random) {
  return Planner(model, batch, names, random).plan();
}

}  // namespace parity::analyzer::synth
