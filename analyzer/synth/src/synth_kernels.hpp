// The CUDA kernels of a synthetic GPU trace: for every module call, the
// kernels its op launches (as cuDNN, cuBLAS and PyTorch name them), each with
// its share of the op's GPU time and its launch configuration. Chosen once
// per trace, as a real run picks its algorithms once and keeps them.
#pragma once

#include <cstdint>
#include <vector>

#include "parity/profiler/trace_rows.hpp"
#include "synth_model.hpp"
#include "synth_names.hpp"
#include "synth_random.hpp"

namespace parity::analyzer::synth {

struct KernelLaunch {
  profiler::NameId name = 0;
  double share = 1;  // of the op's GPU time; the shares of a plan sum to 1
  profiler::LaunchConfig config;
};
using KernelPlan = std::vector<KernelLaunch>;

struct KernelPlans {
  std::vector<KernelPlan> forward, backward;  // per model layer
  KernelPlan reorder;                         // a layout conversion
  KernelPlan unscale;                         // the loss scaler's unscale and inf check
  std::vector<KernelPlan> updates;            // the optimizer's, per parameter
};

KernelPlans plan_kernels(const Model& model, std::int64_t batch, Names& names, SynthRandom& random);

}  // namespace parity::analyzer::synth
