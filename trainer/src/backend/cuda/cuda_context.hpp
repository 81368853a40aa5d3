// What every op of the CUDA backend shares: the device, one compute stream,
// the cuDNN and cuBLAS handles bound to it, one workspace for cuDNN (grown to
// the largest request), the convolution algorithms chosen per shape, and the
// backend's options and counters.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstddef>
#include <map>
#include <string>

#include "device_buffer.hpp"
#include "parity/trainer/backend/backend.hpp"
#include "parity/trainer/backend/cuda_backend.hpp"

namespace parity::trainer::cuda {

// A convolution algorithm benchmarked for one shape, the workspace it needs
// and the math type it was timed with.
struct ConvAlgorithm {
  int algorithm = 0;
  std::size_t workspace = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};

class Context {
 public:
  explicit Context(const CudaBackendOptions& options);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const CudaBackendOptions options;
  int device = 0;
  cudaStream_t stream = nullptr;  // lives as long as the process (tensors may outlive us)
  cudnnHandle_t cudnn = nullptr;
  cublasHandle_t cublas = nullptr;
  BackendStats stats;
  // Chosen algorithms by convolution key (direction, shapes, stride, padding):
  // ResNet's repeated blocks benchmark each shape once.
  std::map<std::string, ConvAlgorithm> conv_algorithms;

  // The shared cuDNN workspace, at least `bytes` large and never null.
  void* workspace(std::size_t bytes);
  // Waits for the compute stream.
  void synchronize() const;

 private:
  DeviceBuffer workspace_;
};

// The stream every CUDA backend on `device` computes on; made once per
// process and never destroyed, so that a tensor freed after its backend
// still has its stream.
cudaStream_t compute_stream(int device);

}  // namespace parity::trainer::cuda
