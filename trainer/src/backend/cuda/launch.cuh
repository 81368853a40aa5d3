// What the kernel files share: grid sizing (one thread per element with a
// grid-stride loop, so any count fits the grid limits), float32 access to
// elements of any storage type, and the dispatch from a Precision to the
// template instance of its storage type.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "cuda_check.hpp"
#include "parity/trainer/backend/precision.hpp"

namespace parity::trainer::cuda::kernels {

constexpr int kThreads = 256;

inline unsigned blocks_for(std::int64_t count) {
  const std::int64_t blocks = (count + kThreads - 1) / kThreads;
  return unsigned(blocks < 1 ? 1 : (blocks > (1 << 20) ? (1 << 20) : blocks));
}

__device__ inline std::int64_t first_index() {
  return std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline std::int64_t grid_stride() { return std::int64_t(gridDim.x) * blockDim.x; }

// Kernels compute in float32 and round once, to nearest even, on the store.
__device__ inline float to_float(float v) { return v; }
__device__ inline float to_float(__half v) { return __half2float(v); }
__device__ inline float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

template <class T>
__device__ T from_float(float v);
template <>
__device__ inline float from_float<float>(float v) {
  return v;
}
template <>
__device__ inline __half from_float<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

// Calls `launch` with a value of the storage type of `type`, whose
// decltype picks the kernel instance: [&](auto tag) { using T = decltype(tag); ... }.
template <class Launch>
void dispatch(Precision type, Launch&& launch) {
  switch (type) {
    case Precision::kFloat16:
      launch(__half{});
      return;
    case Precision::kBFloat16:
      launch(__nv_bfloat16{});
      return;
    case Precision::kFloat32:
      launch(float{});
      return;
    case Precision::kFloat64:  // never: make_cuda_backend refuses float64
      return;
  }
}

}  // namespace parity::trainer::cuda::kernels
