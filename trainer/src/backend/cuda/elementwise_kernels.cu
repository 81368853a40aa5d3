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

// out = op(a, b) element by element, computed in float32.
struct ReluGradient {  // a: the ReLU's output, b: its output gradient
  __device__ float operator()(float y, float dy) const { return y > 0.0f ? dy : dy * 0.0f; }
};
struct AddValue {
  bool relu;
  __device__ float operator()(float a, float b) const {
    const float sum = a + b;
    return relu && !(sum > 0.0f) ? sum * 0.0f : sum;
  }
};

template <class T, class Op>
__global__ void binary_kernel(const T* a, const T* b, T* out, std::int64_t count, Op op) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride())
    out[i] = from_float<T>(op(to_float(a[i]), to_float(b[i])));
}

// The same over Packs of 16 bytes (launch.cuh), for the ResNet's largest
// tensors: 2-byte elements one a thread leave most of the bandwidth unused.
template <class T, class Op>
__global__ void binary_packed_kernel(const Pack<T>* a, const Pack<T>* b, Pack<T>* out,
                                     std::int64_t packs, Op op) {
  for (std::int64_t i = first_index(); i < packs; i += grid_stride()) {
    const Pack<T> left = a[i], right = b[i];
    Pack<T> result;
    for (int k = 0; k < Pack<T>::kSize; ++k)
      result.v[k] = from_float<T>(op(to_float(left.v[k]), to_float(right.v[k])));
    out[i] = result;
  }
}

// Whole packs where every buffer is 16-byte aligned, then the tail (or all
// of it, where one is not) element by element.
template <class Op>
void launch_binary(Precision type, const void* a, const void* b, void* out, std::int64_t count,
                   Op op, cudaStream_t stream) {
  dispatch(type, [&](auto tag) {
    using T = decltype(tag);
    const auto* left = static_cast<const T*>(a);
    const auto* right = static_cast<const T*>(b);
    auto* result = static_cast<T*>(out);
    const std::int64_t packs = packed_count<T>(count, {a, b, out});
    if (packs > 0)
      binary_packed_kernel<<<blocks_for(packs), kThreads, 0, stream>>>(
          reinterpret_cast<const Pack<T>*>(left), reinterpret_cast<const Pack<T>*>(right),
          reinterpret_cast<Pack<T>*>(result), packs, op);
    const std::int64_t done = packs * Pack<T>::kSize;
    if (done < count)
      binary_kernel<<<blocks_for(count - done), kThreads, 0, stream>>>(
          left + done, right + done, result + done, count - done, op);
  });
  PARITY_CUDA_CHECK_LAUNCH();
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
  launch_binary(type, y, dy, dx, count, ReluGradient{}, stream);
}

void add(Precision type, const void* a, const void* b, void* y, std::int64_t count, bool relu,
         cudaStream_t stream) {
  launch_binary(type, a, b, y, count, AddValue{relu}, stream);
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
