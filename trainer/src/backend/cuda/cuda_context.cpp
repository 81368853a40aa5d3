#include "cuda_context.hpp"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "parity/core/error.hpp"

namespace parity::trainer::cuda {

cudaStream_t compute_stream(int device) {
  static std::mutex mutex;
  static std::vector<cudaStream_t> streams;
  const std::lock_guard lock(mutex);
  if (streams.size() <= std::size_t(device)) streams.resize(std::size_t(device) + 1, nullptr);
  cudaStream_t& stream = streams[std::size_t(device)];
  if (!stream) {
    PARITY_CUDA_CHECK(cudaSetDevice(device));
    PARITY_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  return stream;
}

Context::Context(const CudaBackendOptions& backend_options)
    : options(backend_options), device(backend_options.device) {
  const std::string unavailable = cuda_device_unavailable_reason();
  if (!unavailable.empty())
    throw Error("no usable GPU: " + unavailable, "cuda backend",
                "train on a machine with an NVIDIA GPU and driver, or with device_target: CPU");
  int devices = 0;
  PARITY_CUDA_CHECK(cudaGetDeviceCount(&devices));
  if (device < 0 || device >= devices)
    throw Error("GPU " + std::to_string(device) + " does not exist: this machine has " +
                    std::to_string(devices),
                "cuda backend",
                "data-parallel ranks take the GPU numbered by their local rank: launch at most " +
                    std::to_string(devices) + " ranks per machine");
  PARITY_CUDA_CHECK(cudaSetDevice(device));
  stream = compute_stream(device);
  // Keep freed memory in the pool rather than return it to the driver at
  // every synchronization: steady-state steps then never call the driver.
  cudaMemPool_t pool = nullptr;
  PARITY_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  std::uint64_t keep_all = UINT64_MAX;
  PARITY_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all));
  PARITY_CUDNN_CHECK(cudnnCreate(&cudnn));
  PARITY_CUDNN_CHECK(cudnnSetStream(cudnn, stream));
  PARITY_CUBLAS_CHECK(cublasCreate(&cublas));
  PARITY_CUBLAS_CHECK(cublasSetStream(cublas, stream));
  PARITY_CUBLAS_CHECK(
      cublasSetMathMode(cublas, options.tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
}

Context::~Context() {
  // Work still queued may use the handles or the workspace.
  (void)cudaStreamSynchronize(stream);
  if (cublas) (void)cublasDestroy(cublas);
  if (cudnn) (void)cudnnDestroy(cudnn);
}

void* Context::workspace(std::size_t bytes) {
  // Never null, even for 0 bytes: cuDNN's fused batch norm takes a null
  // workspace for "no fast path" and falls back to a call without its ReLU.
  constexpr std::size_t kLeast = 256;
  if (workspace_.bytes() < std::max(bytes, kLeast)) {
    workspace_ = DeviceBuffer();  // freed in stream order before the larger one is taken
    workspace_ = DeviceBuffer(std::max(bytes, kLeast), stream);
  }
  return workspace_.data();
}

void Context::synchronize() const { PARITY_CUDA_CHECK(cudaStreamSynchronize(stream)); }

}  // namespace parity::trainer::cuda
