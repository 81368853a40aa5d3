// The CUDA backend: cuDNN convolutions (algorithms benchmarked once per
// shape) and batch norm, cuBLAS for the classifier, our own kernels for ReLU,
// the residual add, pooling, the loss and the fused SGD update. Activations
// and convolution weights live on the GPU in NHWC; host copies are in the
// plain logical layout, as for every backend. Built only with CUDA and cuDNN
// (PARITY_HAVE_CUDA_BACKEND); docs/gpu.md.
#pragma once

#include <memory>
#include <string>

#include "parity/trainer/backend/backend.hpp"
#include "parity/trainer/backend/precision.hpp"

namespace parity::trainer {

struct CudaBackendOptions {
  int device = 0;
  // Activations, convolutions and the classifier; float16 and bfloat16 keep
  // float32 master weights, gradients and batch-norm statistics (amp_level O2).
  Precision precision = Precision::kFloat32;
  bool tf32 = false;           // float32 convolutions and matrix products on TF32 tensor cores
  bool deterministic = false;  // only cuDNN algorithms that give the same bits every run
  std::size_t workspace_limit = std::size_t(512) << 20;  // bytes an algorithm may use
};

// Empty when a CUDA device can be used here; otherwise why not.
std::string cuda_device_unavailable_reason();

// Throws parity::Error (with a hint) when there is no usable GPU.
std::unique_ptr<Backend> make_cuda_backend(const CudaBackendOptions& options = {});

}  // namespace parity::trainer
