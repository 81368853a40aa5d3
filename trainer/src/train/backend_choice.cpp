// The backend a config asks for (backend_choice.hpp); compiled with
// PARITY_HAVE_CUDA_BACKEND in builds that have the CUDA backend.
#include "backend_choice.hpp"

#include "parity/core/error.hpp"
#include "parity/core/log.hpp"
#include "parity/trainer/backend/cpu_backend.hpp"
#include "parity/trainer/backend/reference_backend.hpp"
#ifdef PARITY_HAVE_CUDA_BACKEND
#include "parity/trainer/backend/cuda_backend.hpp"
#endif

namespace parity::trainer {

void check_device_target(const TrainConfig& config) {
  if (config.device_target != DeviceTarget::kGpu) return;
#ifdef PARITY_HAVE_CUDA_BACKEND
  const std::string unavailable = cuda_device_unavailable_reason();
  if (!unavailable.empty())
    throw Error("no usable GPU: " + unavailable, "config key 'device_target'",
                "train on a machine with an NVIDIA GPU and driver, or with device_target: CPU");
#else
  throw Error("this build of parity-train has no CUDA backend", "config key 'device_target'",
              "build with the CUDA toolkit and cuDNN (docs/gpu.md), or train with "
              "device_target: CPU");
#endif
}

std::unique_ptr<Backend> make_backend(const TrainConfig& config, [[maybe_unused]] int device) {
#ifdef PARITY_HAVE_CUDA_BACKEND
  if (config.device_target == DeviceTarget::kGpu) {
    CudaBackendOptions options;
    options.device = device;
    options.deterministic = config.deterministic;
    options.tf32 = config.tf32;
    options.precision = config.precision;
    // MindSpore's O2 configs do this (a fixed scale of 1024, no drop); say what it risks.
    if (options.precision == Precision::kFloat16 &&
        config.loss_scale_manager == LossScaleKind::kFixed && !config.drop_overflow_update)
      log::warning(
          "float16 with a fixed loss scale and drop_overflow_update false: a step "
          "whose gradients overflow float16 updates the weights with Inf or NaN "
          "(loss_scale_manager: dynamic, or drop_overflow_update: true, skips it)");
    return make_cuda_backend(options);
  }
#endif
  if (config.precision == Precision::kFloat64)
    return make_reference_backend({static_cast<int>(config.threads)});
  return make_cpu_backend({static_cast<int>(config.threads), config.deterministic});
}

}  // namespace parity::trainer
