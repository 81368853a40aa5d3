// Checks every CUDA runtime, cuDNN and cuBLAS call: a failure throws
// parity::Error naming the call, its file:line, the library's own message
// and a hint for the common causes (no GPU, out of memory, an unsupported
// configuration).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

namespace parity::trainer::cuda {

[[noreturn]] void throw_cuda_failure(cudaError_t result, const char* call, const char* file,
                                     int line);
[[noreturn]] void throw_cudnn_failure(cudnnStatus_t result, const char* call, const char* file,
                                      int line);
[[noreturn]] void throw_cublas_failure(cublasStatus_t result, const char* call, const char* file,
                                       int line);

}  // namespace parity::trainer::cuda

#define PARITY_CUDA_CHECK(call)                                                                   \
  do {                                                                                            \
    const cudaError_t parity_cuda_result = (call);                                                \
    if (parity_cuda_result != cudaSuccess)                                                        \
      ::parity::trainer::cuda::throw_cuda_failure(parity_cuda_result, #call, __FILE__, __LINE__); \
  } while (false)

#define PARITY_CUDNN_CHECK(call)                                                         \
  do {                                                                                   \
    const cudnnStatus_t parity_cudnn_result = (call);                                    \
    if (parity_cudnn_result != CUDNN_STATUS_SUCCESS)                                     \
      ::parity::trainer::cuda::throw_cudnn_failure(parity_cudnn_result, #call, __FILE__, \
                                                   __LINE__);                            \
  } while (false)

#define PARITY_CUBLAS_CHECK(call)                                                          \
  do {                                                                                     \
    const cublasStatus_t parity_cublas_result = (call);                                    \
    if (parity_cublas_result != CUBLAS_STATUS_SUCCESS)                                     \
      ::parity::trainer::cuda::throw_cublas_failure(parity_cublas_result, #call, __FILE__, \
                                                    __LINE__);                             \
  } while (false)

// After a kernel launch: a bad launch configuration is reported here, not
// at the next synchronization.
#define PARITY_CUDA_CHECK_LAUNCH() PARITY_CUDA_CHECK(cudaGetLastError())
