#include "cuda_check.hpp"

#include <string>

#include "parity/core/error.hpp"

namespace parity::trainer::cuda {
namespace {

std::string where(const char* call, const char* file, int line) {
  return std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": ";
}

}  // namespace

void throw_cuda_failure(cudaError_t result, const char* call, const char* file, int line) {
  std::string hint;
  switch (result) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInitializationError:
      hint = "no usable NVIDIA GPU or driver here: train with device_target: CPU";
      break;
    case cudaErrorMemoryAllocation:
      hint = "the GPU is out of memory: lower batch_size, or free the GPU of other processes";
      break;
    case cudaErrorInvalidDevice:
      hint = "the device number is not one of this machine's GPUs (see nvidia-smi)";
      break;
    case cudaErrorNoKernelImageForDevice:
      hint =
          "this build has no code for this GPU: rebuild with its architecture in "
          "CMAKE_CUDA_ARCHITECTURES";
      break;
    default:
      hint =
          "a failed kernel leaves the CUDA context unusable: rerun with "
          "CUDA_LAUNCH_BLOCKING=1 to find the call that failed first";
  }
  throw Error(where(call, file, line) + cudaGetErrorString(result) + " (" +
                  std::to_string(static_cast<int>(result)) + ")",
              "cuda backend", hint);
}

void throw_cudnn_failure(cudnnStatus_t result, const char* call, const char* file, int line) {
  std::string hint = "see cuDNN's API log: CUDNN_LOGERR_DBG=1 CUDNN_LOGDEST_DBG=stderr";
  if (result == CUDNN_STATUS_NOT_SUPPORTED)
    hint = "cuDNN has no kernel for this shape, layout and data type; " + hint;
  else if (result == CUDNN_STATUS_ALLOC_FAILED)
    hint = "the GPU is out of memory: lower batch_size";
  throw Error(where(call, file, line) + cudnnGetErrorString(result) + " (" +
                  std::to_string(static_cast<int>(result)) + ")",
              "cuda backend", hint);
}

void throw_cublas_failure(cublasStatus_t result, const char* call, const char* file, int line) {
  const std::string hint = result == CUBLAS_STATUS_ALLOC_FAILED
                               ? "the GPU is out of memory: lower batch_size"
                               : "rerun with CUBLAS_LOGINFO_DBG=1 CUBLAS_LOGDEST_DBG=stderr";
  throw Error(where(call, file, line) + cublasGetStatusString(result) + " (" +
                  std::to_string(static_cast<int>(result)) + ")",
              "cuda backend", hint);
}

}  // namespace parity::trainer::cuda
