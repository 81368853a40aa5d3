// SGD over all parameters in one launch: one block per chunk of a tensor,
// each element updated with the formula every backend shares
// (SgdCoefficients::update).
#include "kernels.hpp"
#include "launch.cuh"

namespace parity::trainer::cuda::kernels {
namespace {

__global__ void sgd_kernel(const SgdTensor* tensors, const SgdChunk* chunks, SgdCoefficients c) {
  const SgdChunk chunk = chunks[blockIdx.x];
  const SgdTensor t = tensors[chunk.tensor];
  c.weight_decay = t.weight_decay;
  const std::int64_t end = min(chunk.begin + kSgdChunk, t.count);
  for (std::int64_t i = chunk.begin + threadIdx.x; i < end; i += blockDim.x)
    t.w[i] = c.update(t.w[i], t.grad[i], t.buf[i]);
}

}  // namespace

void sgd_multi_tensor(const SgdTensor* tensors, const SgdChunk* chunks, std::int64_t chunk_count,
                      const SgdCoefficients& c, cudaStream_t stream) {
  if (chunk_count == 0) return;
  sgd_kernel<<<unsigned(chunk_count), kThreads * 2, 0, stream>>>(tensors, chunks, c);
  PARITY_CUDA_CHECK_LAUNCH();
}

}  // namespace parity::trainer::cuda::kernels
