// Elementwise kernels: fill, ReLU and its backward, the (residual) add, and
// the classifier's bias and bias gradient. ReLU is x > 0 ? x : x * 0, as
// oneDNN computes it: a NaN stays NaN, so NaN localisation sees where it began.
#include "kernels.hpp"
#include "launch.cuh"

namespace parity::trainer::cuda::kernels {
namespace {

__global__ void fill_kernel(float* out, std::int64_t count, float value) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride()) out[i] = value;
}

__global__ void relu_forward_kernel(const float* x, float* y, std::int64_t count) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride())
    y[i] = x[i] > 0.0f ? x[i] : x[i] * 0.0f;
}

__global__ void relu_backward_kernel(const float* y, const float* dy, float* dx,
                                     std::int64_t count) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride())
    dx[i] = y[i] > 0.0f ? dy[i] : dy[i] * 0.0f;
}

__global__ void add_kernel(const float* a, const float* b, float* y, std::int64_t count,
                           bool relu) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride()) {
    const float sum = a[i] + b[i];
    y[i] = relu && !(sum > 0.0f) ? sum * 0.0f : sum;
  }
}

__global__ void add_bias_kernel(float* y, const float* bias, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t i = first_index(); i < rows * cols; i += grid_stride()) y[i] += bias[i % cols];
}

__global__ void column_sums_kernel(const float* m, float* sums, std::int64_t rows,
                                   std::int64_t cols) {
  for (std::int64_t k = first_index(); k < cols; k += grid_stride()) {
    float total = 0.0f;
    for (std::int64_t r = 0; r < rows; ++r) total += m[r * cols + k];
    sums[k] = total;
  }
}

}  // namespace

void fill(float* out, std::int64_t count, float value, cudaStream_t stream) {
  fill_kernel<<<blocks_for(count), kThreads, 0, stream>>>(out, count, value);
  PARITY_CUDA_CHECK_LAUNCH();
}

void relu_forward(const float* x, float* y, std::int64_t count, cudaStream_t stream) {
  relu_forward_kernel<<<blocks_for(count), kThreads, 0, stream>>>(x, y, count);
  PARITY_CUDA_CHECK_LAUNCH();
}

void relu_backward(const float* y, const float* dy, float* dx, std::int64_t count,
                   cudaStream_t stream) {
  relu_backward_kernel<<<blocks_for(count), kThreads, 0, stream>>>(y, dy, dx, count);
  PARITY_CUDA_CHECK_LAUNCH();
}

void add(const float* a, const float* b, float* y, std::int64_t count, bool relu,
         cudaStream_t stream) {
  add_kernel<<<blocks_for(count), kThreads, 0, stream>>>(a, b, y, count, relu);
  PARITY_CUDA_CHECK_LAUNCH();
}

void add_bias(float* y, const float* bias, std::int64_t rows, std::int64_t cols,
              cudaStream_t stream) {
  add_bias_kernel<<<blocks_for(rows * cols), kThreads, 0, stream>>>(y, bias, rows, cols);
  PARITY_CUDA_CHECK_LAUNCH();
}

void column_sums(const float* m, float* sums, std::int64_t rows, std::int64_t cols,
                 cudaStream_t stream) {
  column_sums_kernel<<<blocks_for(cols), kThreads, 0, stream>>>(m, sums, rows, cols);
  PARITY_CUDA_CHECK_LAUNCH();
}

}  // namespace parity::trainer::cuda::kernels
