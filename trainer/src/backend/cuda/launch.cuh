// Grid sizing shared by the kernel files: one thread per element with a
// grid-stride loop, so any count fits the grid limits.
#pragma once

#include <cstdint>

#include "cuda_check.hpp"

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

}  // namespace parity::trainer::cuda::kernels
