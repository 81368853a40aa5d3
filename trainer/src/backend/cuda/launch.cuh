// What the kernel files share: grid sizing (one thread per element with a
// grid-stride loop, so any count fits the grid limits), float32 access to
// elements of any storage type, and the dispatch from a Precision to the
// template instance of its storage type.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <initializer_list>

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

// 16 bytes of elements, moved by one load or store: 8 float16 or bfloat16
// values, 4 float32.
template <class T>
struct alignas(16) Pack {
  static constexpr int kSize = int(16 / sizeof(T));
  T v[kSize];
};

// How many whole Packs of `count` elements the buffers hold, where every
// one of them is 16-byte aligned (device allocations are); 0 where one is
// not, and the kernels then take the elements one by one.
template <class T>
std::int64_t packed_count(std::int64_t count, std::initializer_list<const void*> buffers) {
  for (const void* buffer : buffers)
    if (reinterpret_cast<std::uintptr_t>(buffer) % 16 != 0) return 0;
  return count / Pack<T>::kSize;
}

// The index arithmetic of kernels that divide (the position of an element
// in its tensor) runs in 32 bits wherever the element counts allow: 64-bit
// division is emulated on the GPU, dozens of instructions each. Calls
// `launch` with an index value of the type to use; the bound keeps
// i + grid_stride() from overflowing a signed 32-bit index.
template <class Launch>
void dispatch_index(std::int64_t largest_count, Launch&& launch) {
  constexpr std::int64_t kMaxThreads = std::int64_t{1} << 28;  // blocks_for's cap * kThreads
  if (largest_count < (std::int64_t{1} << 31) - kMaxThreads)
    launch(std::int32_t{});
  else
    launch(std::int64_t{});
}

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
