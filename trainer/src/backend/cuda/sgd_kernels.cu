// The optimizer's multi-tensor kernels, one block per chunk of a tensor: SGD
// over all parameters (each element updated with the formula every backend
// shares, SgdCoefficients::update) and the loss scaler's overflow count.
#include "kernels.hpp"
#include "launch.cuh"

namespace parity::trainer::cuda::kernels {
namespace {

__global__ void sgd_kernel(const SgdTensor* tensors, const TensorChunk* chunks, SgdCoefficients c) {
  const TensorChunk chunk = chunks[blockIdx.x];
  const SgdTensor t = tensors[chunk.tensor];
  c.weight_decay = t.weight_decay;
  const std::int64_t end = min(chunk.begin + kChunkElements, t.count);
  for (std::int64_t i = chunk.begin + threadIdx.x; i < end; i += blockDim.x)
    t.w[i] = c.update(t.w[i], t.grad[i], t.buf[i]);
}

__global__ void count_non_finite_kernel(const CheckedTensor* tensors, const TensorChunk* chunks,
                                        unsigned long long* non_finite) {
  const TensorChunk chunk = chunks[blockIdx.x];
  const CheckedTensor t = tensors[chunk.tensor];
  const std::int64_t end = min(chunk.begin + kChunkElements, t.count);
  unsigned found = 0;
  for (std::int64_t i = chunk.begin + threadIdx.x; i < end; i += blockDim.x)
    found += !isfinite(t.values[i]);
  // One atomic per warp that found something: overflow is the rare case.
  for (int offset = 16; offset > 0; offset /= 2)
    found += __shfl_down_sync(0xffffffffu, found, offset);
  if ((threadIdx.x & 31) == 0 && found) atomicAdd(non_finite, (unsigned long long)found);
}

}  // namespace

void count_non_finite(const CheckedTensor* tensors, const TensorChunk* chunks,
                      std::int64_t chunk_count, unsigned long long* non_finite,
                      cudaStream_t stream) {
  if (chunk_count == 0) return;
  count_non_finite_kernel<<<unsigned(chunk_count), kThreads * 2, 0, stream>>>(tensors, chunks,
                                                                              non_finite);
  PARITY_CUDA_CHECK_LAUNCH();
}

void sgd_multi_tensor(const SgdTensor* tensors, const TensorChunk* chunks, std::int64_t chunk_count,
                      const SgdCoefficients& c, cudaStream_t stream) {
  if (chunk_count == 0) return;
  sgd_kernel<<<unsigned(chunk_count), kThreads * 2, 0, stream>>>(tensors, chunks, c);
  PARITY_CUDA_CHECK_LAUNCH();
}

}  // namespace parity::trainer::cuda::kernels
