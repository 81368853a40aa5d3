// Launchers of the CUDA backend's own kernels, each queued on `stream`
// (checked at launch). Plain C++17, shared by the host code (g++) and the
// kernel files (nvcc). 4-D activations are NHWC; sizes are element counts.
// Activations come in any Precision (`type`, untyped pointers); the kernels
// compute in float32 and round once when they store.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "../shared/sgd_coefficients.hpp"
#include "parity/trainer/backend/precision.hpp"

namespace parity::trainer::cuda::kernels {

// Layouts (layout_kernels.cu).
void nchw_to_nhwc(const float* in, float* out, std::int64_t n, std::int64_t c, std::int64_t h,
                  std::int64_t w, cudaStream_t stream);
void nhwc_to_nchw(const float* in, float* out, std::int64_t n, std::int64_t c, std::int64_t h,
                  std::int64_t w, cudaStream_t stream);
// `out` is [n, h + before + after, w + before + after, c]: `in` with zero borders.
struct PadShape {
  std::int64_t n, h, w, c, before, after;
};
void pad_nhwc(Precision type, const void* in, void* out, const PadShape& shape,
              cudaStream_t stream);
// The inverse: the interior of a padded tensor.
void crop_nhwc(Precision type, const void* padded, void* out, const PadShape& shape,
               cudaStream_t stream);

// Elementwise (elementwise_kernels.cu).
// out = in converted (rounded to nearest even when narrowing).
void convert(Precision from, const void* in, Precision to, void* out, std::int64_t count,
             cudaStream_t stream);
void fill(Precision type, void* out, std::int64_t count, float value, cudaStream_t stream);
void relu_forward(Precision type, const void* x, void* y, std::int64_t count, cudaStream_t stream);
// dx = y > 0 ? dy : dy * 0, from the ReLU's output y; dx may be dy.
void relu_backward(Precision type, const void* y, const void* dy, void* dx, std::int64_t count,
                   cudaStream_t stream);
// y = a + b, or relu(a + b).
void add(Precision type, const void* a, const void* b, void* y, std::int64_t count, bool relu,
         cudaStream_t stream);
// y[r, k] += bias[k] for a row-major [rows, cols] matrix.
void add_bias(float* y, const float* bias, std::int64_t rows, std::int64_t cols,
              cudaStream_t stream);
// sums[k] = sum over r of m[r, k], in row order (the same bits every run).
void column_sums(const float* m, float* sums, std::int64_t rows, std::int64_t cols,
                 cudaStream_t stream);

// Pooling (pool_kernels.cu). Max pooling keeps, per output, the input
// position (h * W + w) of the first maximum of its window; a NaN never wins
// (both as oneDNN does on the CPU).
struct PoolShape {
  std::int64_t n, h, w, c, out_h, out_w, kernel, stride, padding;
};
void max_pool_forward(Precision type, const void* x, void* y, std::int32_t* argmax,
                      const PoolShape& shape, cudaStream_t stream);
// A gather over the windows that cover each input: no atomics, the same bits every run.
void max_pool_backward(Precision type, const void* dy, const std::int32_t* argmax, void* dx,
                       const PoolShape& shape, cudaStream_t stream);
// [n, h, w, c] -> [n, c]: the mean over h * w (summed in float32).
void global_avg_pool_forward(Precision type, const void* x, void* y, std::int64_t n,
                             std::int64_t hw, std::int64_t c, cudaStream_t stream);
void global_avg_pool_backward(Precision type, const void* dy, void* dx, std::int64_t n,
                              std::int64_t hw, std::int64_t c, cudaStream_t stream);

// Softmax cross-entropy with smoothed targets (loss_kernels.cu): target
// `on` for the label, `off` for every other class. Per row: the loss (in
// double), whether the first maximum is the label, and the gradient
// grad_scale * (softmax * sum(targets) - targets).
struct CrossEntropyArgs {
  const float* logits;
  const std::int32_t* labels;
  std::int64_t rows, classes;
  double on, off, grad_scale;
  float* grad;
  double* row_loss;
  std::int32_t* row_correct;
};
void softmax_cross_entropy(const CrossEntropyArgs& args, cudaStream_t stream);

// Multi-tensor launches: one block per chunk of kChunkElements elements of
// one tensor, so a single launch covers every parameter.
struct TensorChunk {
  std::int32_t tensor;  // row of the launch's tensor table
  std::int64_t begin;   // first element; a chunk spans kChunkElements elements or to the end
};
constexpr std::int64_t kChunkElements = 65536;
// Appends the chunks of table row `tensor`, which holds `count` elements.
inline void append_chunks(std::vector<TensorChunk>& chunks, std::int32_t tensor,
                          std::int64_t count) {
  for (std::int64_t begin = 0; begin < count; begin += kChunkElements)
    chunks.push_back({tensor, begin});
}

// SGD over many parameters in one launch (sgd_kernels.cu).
struct SgdTensor {
  float* w;
  const float* grad;
  float* buf;
  std::int64_t count;
  float weight_decay;
};
// `tensors` and `chunks` are device arrays; `c`'s weight decay is replaced by each tensor's.
void sgd_multi_tensor(const SgdTensor* tensors, const TensorChunk* chunks, std::int64_t chunk_count,
                      const SgdCoefficients& c, cudaStream_t stream);

// Adds the number of Inf and NaN values in many tensors to *non_finite, a
// device counter, in one launch (sgd_kernels.cu): the loss scaler's check.
struct CheckedTensor {
  const float* values;
  std::int64_t count;
};
void count_non_finite(const CheckedTensor* tensors, const TensorChunk* chunks,
                      std::int64_t chunk_count, unsigned long long* non_finite,
                      cudaStream_t stream);

}  // namespace parity::trainer::cuda::kernels
