// Elementwise kernels: conversion between precisions, fill, ReLU and its
// backward, the (residual) add, and the classifier's bias and bias gradient.
// ReLU is x > 0 ? x : x * 0, as oneDNN computes it: a NaN stays NaN, so NaN
// localisation sees where it began.
#include "kernels.hpp"
#include "launch.cuh"

namespace parity::trainer::cuda::kernels {
namespace {

template <class From, class To>
__global__ void convert_kernel(const From* in, To* out, std::int64_t count) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride())
    out[i] = from_float<To>(to_float(in[i]));
}

template <class T>
__global__ void fill_kernel(T* out, std::int64_t count, float value) {
  const T stored = from_float<T>(value);
  for (std::int64_t i = first_index(); i < count; i += grid_stride()) out[i] = stored;
}

template <class T>
__global__ void relu_forward_kernel(const T* x, T* y, std::int64_t count) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride()) {
    const float v = to_float(x[i]);
    y[i] = from_float<T>(v > 0.0f ? v : v * 0.0f);
  }
}

__device__ inline float relu_gradient(float y, float dy) { return y > 0.0f ? dy : dy * 0.0f; }
__device__ inline float add_value(float a, float b, bool relu) {
  const float sum = a + b;
  return relu && !(sum > 0.0f) ? sum * 0.0f : sum;
}

template <class T>
__global__ void relu_backward_kernel(const T* y, const T* dy, T* dx, std::int64_t count) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride())
    dx[i] = from_float<T>(relu_gradient(to_float(y[i]), to_float(dy[i])));
}

template <class T>
__global__ void add_kernel(const T* a, const T* b, T* y, std::int64_t count, bool relu) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride())
    y[i] = from_float<T>(add_value(to_float(a[i]), to_float(b[i]), relu));
}

// The same two kernels over Packs of 16 bytes (launch.cuh), for the
// ResNet's largest tensors: 2-byte elements one a thread leave most of the
// bandwidth unused.
template <class T>
__global__ void relu_backward_packed_kernel(const Pack<T>* y, const Pack<T>* dy, Pack<T>* dx,
                                            std::int64_t packs) {
  for (std::int64_t i = first_index(); i < packs; i += grid_stride()) {
    const Pack<T> out = y[i], gradient = dy[i];
    Pack<T> in;
    for (int k = 0; k < Pack<T>::kSize; ++k)
      in.v[k] = from_float<T>(relu_gradient(to_float(out.v[k]), to_float(gradient.v[k])));
    dx[i] = in;
  }
}

template <class T>
__global__ void add_packed_kernel(const Pack<T>* a, const Pack<T>* b, Pack<T>* y,
                                  std::int64_t packs, bool relu) {
  for (std::int64_t i = first_index(); i < packs; i += grid_stride()) {
    const Pack<T> left = a[i], right = b[i];
    Pack<T> sum;
    for (int k = 0; k < Pack<T>::kSize; ++k)
      sum.v[k] = from_float<T>(add_value(to_float(left.v[k]), to_float(right.v[k]), relu));
    y[i] = sum;
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

void convert(Precision from, const void* in, Precision to, void* out, std::int64_t count,
             cudaStream_t stream) {
  dispatch(from, [&](auto from_tag) {
    using From = decltype(from_tag);
    dispatch(to, [&](auto to_tag) {
      using To = decltype(to_tag);
      convert_kernel<<<blocks_for(count), kThreads, 0, stream>>>(static_cast<const From*>(in),
                                                                 static_cast<To*>(out), count);
    });
  });
  PARITY_CUDA_CHECK_LAUNCH();
}

void fill(Precision type, void* out, std::int64_t count, float value, cudaStream_t stream) {
  dispatch(type, [&](auto tag) {
    using T = decltype(tag);
    fill_kernel<<<blocks_for(count), kThreads, 0, stream>>>(static_cast<T*>(out), count, value);
  });
  PARITY_CUDA_CHECK_LAUNCH();
}

void relu_forward(Precision type, const void* x, void* y, std::int64_t count, cudaStream_t stream) {
  dispatch(type, [&](auto tag) {
    using T = decltype(tag);
    relu_forward_kernel<<<blocks_for(count), kThreads, 0, stream>>>(static_cast<const T*>(x),
                                                                    static_cast<T*>(y), count);
  });
  PARITY_CUDA_CHECK_LAUNCH();
}

void relu_backward(Precision type, const void* y, const void* dy, void* dx, std::int64_t count,
                   cudaStream_t stream) {
  dispatch(type, [&](auto tag) {
    using T = decltype(tag);
    const auto* out = static_cast<const T*>(y);
    const auto* gradient = static_cast<const T*>(dy);
    auto* in = static_cast<T*>(dx);
    const std::int64_t packs = packed_count<T>(count, {y, dy, dx});
    if (packs > 0)
      relu_backward_packed_kernel<<<blocks_for(packs), kThreads, 0, stream>>>(
          reinterpret_cast<const Pack<T>*>(out), reinterpret_cast<const Pack<T>*>(gradient),
          reinterpret_cast<Pack<T>*>(in), packs);
    const std::int64_t done = packs * Pack<T>::kSize;
    if (done < count)
      relu_backward_kernel<<<blocks_for(count - done), kThreads, 0, stream>>>(
          out + done, gradient + done, in + done, count - done);
  });
  PARITY_CUDA_CHECK_LAUNCH();
}

void add(Precision type, const void* a, const void* b, void* y, std::int64_t count, bool relu,
         cudaStream_t stream) {
  dispatch(type, [&](auto tag) {
    using T = decltype(tag);
    const auto* left = static_cast<const T*>(a);
    const auto* right = static_cast<const T*>(b);
    auto* sum = static_cast<T*>(y);
    const std::int64_t packs = packed_count<T>(count, {a, b, y});
    if (packs > 0)
      add_packed_kernel<<<blocks_for(packs), kThreads, 0, stream>>>(
          reinterpret_cast<const Pack<T>*>(left), reinterpret_cast<const Pack<T>*>(right),
          reinterpret_cast<Pack<T>*>(sum), packs, relu);
    const std::int64_t done = packs * Pack<T>::kSize;
    if (done < count)
      add_kernel<<<blocks_for(count - done), kThreads, 0, stream>>>(left + done, right + done,
                                                                   sum + done, count - done, relu);
  });
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
