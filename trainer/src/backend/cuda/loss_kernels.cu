// Softmax cross-entropy with label smoothing, one block per row. The loss
// is accumulated in double, like the host reference (softmax_cross_entropy);
// the gradient is float.
#include <cmath>

#include "kernels.hpp"
#include "launch.cuh"

namespace parity::trainer::cuda::kernels {
namespace {

// The block's sum of one value per thread (kThreads threads).
__device__ double block_sum(double value, double* shared) {
  shared[threadIdx.x] = value;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (int(threadIdx.x) < half) shared[threadIdx.x] += shared[threadIdx.x + half];
    __syncthreads();
  }
  const double total = shared[0];
  __syncthreads();
  return total;
}

__global__ void __launch_bounds__(kThreads) cross_entropy_kernel(CrossEntropyArgs a) {
  __shared__ double sums[kThreads];
  __shared__ float peaks[kThreads];
  __shared__ std::int64_t peak_at[kThreads];
  const std::int64_t row = blockIdx.x;
  const float* z = a.logits + row * a.classes;
  const std::int32_t label = a.labels[row];

  // The first maximum: each thread scans its classes in order, then the
  // block keeps the larger value, or the lower class among equals.
  float peak = -INFINITY;
  std::int64_t at = a.classes;
  for (std::int64_t k = threadIdx.x; k < a.classes; k += kThreads)
    if (at == a.classes || z[k] > peak) {
      peak = z[k];
      at = k;
    }
  peaks[threadIdx.x] = peak;
  peak_at[threadIdx.x] = at;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (int(threadIdx.x) < half) {
      const float other = peaks[threadIdx.x + half];
      const std::int64_t other_at = peak_at[threadIdx.x + half];
      const bool mine_empty = peak_at[threadIdx.x] == a.classes;
      if (other_at != a.classes &&
          (mine_empty || other > peaks[threadIdx.x] ||
           (other == peaks[threadIdx.x] && other_at < peak_at[threadIdx.x]))) {
        peaks[threadIdx.x] = other;
        peak_at[threadIdx.x] = other_at;
      }
    }
    __syncthreads();
  }
  const double top = peaks[0];
  const std::int64_t top_at = peak_at[0];

  double exp_sum = 0.0, logit_sum = 0.0;
  for (std::int64_t k = threadIdx.x; k < a.classes; k += kThreads) {
    exp_sum += exp(double(z[k]) - top);
    logit_sum += double(z[k]);
  }
  exp_sum = block_sum(exp_sum, sums);
  logit_sum = block_sum(logit_sum, sums);
  const double log_sum = log(exp_sum) + top;
  const double target_sum = a.on + a.off * double(a.classes - 1);

  // -sum_k t_k log softmax_k = target_sum * log_sum - sum_k t_k z_k.
  if (threadIdx.x == 0) {
    const double weighted = a.on * double(z[label]) + a.off * (logit_sum - double(z[label]));
    a.row_loss[row] = target_sum * log_sum - weighted;
    a.row_correct[row] = top_at == label ? 1 : 0;
  }
  for (std::int64_t k = threadIdx.x; k < a.classes; k += kThreads) {
    const double target = k == label ? a.on : a.off;
    a.grad[row * a.classes + k] =
        float(a.grad_scale * (exp(double(z[k]) - log_sum) * target_sum - target));
  }
}

}  // namespace

void softmax_cross_entropy(const CrossEntropyArgs& args, cudaStream_t stream) {
  if (args.rows == 0) return;
  cross_entropy_kernel<<<unsigned(args.rows), kThreads, 0, stream>>>(args);
  PARITY_CUDA_CHECK_LAUNCH();
}

}  // namespace parity::trainer::cuda::kernels
