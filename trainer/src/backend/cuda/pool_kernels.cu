// Max pooling with the CPU backend's (oneDNN's) rules: the first maximum of
// the window wins ties, and a NaN never wins (oneDNN replaces the running
// maximum, which starts at the lowest float, only by a greater value), and a
// deterministic backward; global average pooling. Every precision computes
// in float32; max pooling stores an input value exactly.
#include <algorithm>
#include <cfloat>

#include "kernels.hpp"
#include "launch.cuh"

namespace parity::trainer::cuda::kernels {
namespace {

// One thread per output element [n, oh, ow, c]; I, the index type
// (dispatch_index).
template <class T, class I>
__global__ void max_pool_forward_kernel(const T* x, T* y, std::int32_t* argmax, PoolShape shape) {
  const I n = I(shape.n), h = I(shape.h), w = I(shape.w), c = I(shape.c), out_h = I(shape.out_h),
          out_w = I(shape.out_w), kernel = I(shape.kernel), stride = I(shape.stride),
          padding = I(shape.padding);
  const I total = n * out_h * out_w * c;
  for (I i = I(first_index()); i < total; i += I(grid_stride())) {
    const I channel = i % c, ox = (i / c) % out_w, oy = (i / (c * out_w)) % out_h,
            image = i / (c * out_w * out_h);
    const I y0 = oy * stride - padding, x0 = ox * stride - padding;
    // As on the CPU, a window of NaN or -inf alone yields the lowest float
    // and sends its gradient to its top-left position: nowhere (-1) when
    // that is padding.
    float best = -FLT_MAX;
    I best_at = y0 >= 0 && x0 >= 0 ? y0 * w + x0 : I(-1);
    for (I ky = 0; ky < kernel; ++ky) {
      const I row = y0 + ky;
      if (row < 0 || row >= h) continue;
      for (I kx = 0; kx < kernel; ++kx) {
        const I col = x0 + kx;
        if (col < 0 || col >= w) continue;
        const float v = to_float(x[((image * h + row) * w + col) * c + channel]);
        if (v > best) {
          best = v;
          best_at = row * w + col;
        }
      }
    }
    y[i] = from_float<T>(best);
    argmax[i] = std::int32_t(best_at);
  }
}

// One thread per input element: the sum of the gradients of the windows
// whose maximum it was, visited in a fixed order.
template <class T, class I>
__global__ void max_pool_backward_kernel(const T* dy, const std::int32_t* argmax, T* dx,
                                         PoolShape shape) {
  const I n = I(shape.n), h = I(shape.h), w = I(shape.w), c = I(shape.c), out_h = I(shape.out_h),
          out_w = I(shape.out_w), kernel = I(shape.kernel), stride = I(shape.stride),
          padding = I(shape.padding);
  const I total = n * h * w * c;
  for (I i = I(first_index()); i < total; i += I(grid_stride())) {
    const I channel = i % c, col = (i / c) % w, row = (i / (c * w)) % h, image = i / (c * w * h);
    // Windows oy with oy * stride - padding <= row <= oy * stride - padding + kernel - 1.
    const I py = row + padding, px = col + padding;
    const I oy_begin = py >= kernel ? (py - kernel) / stride + 1 : I(0);
    const I ox_begin = px >= kernel ? (px - kernel) / stride + 1 : I(0);
    const I oy_end = min(I(py / stride + 1), out_h), ox_end = min(I(px / stride + 1), out_w);
    const std::int32_t here = std::int32_t(row * w + col);
    float total_grad = 0.0f;
    for (I oy = oy_begin; oy < oy_end; ++oy)
      for (I ox = ox_begin; ox < ox_end; ++ox) {
        const I o = ((image * out_h + oy) * out_w + ox) * c + channel;
        if (argmax[o] == here) total_grad += to_float(dy[o]);
      }
    dx[i] = from_float<T>(total_grad);
  }
}

// One thread per (image, channel); consecutive threads read consecutive channels.
template <class T>
__global__ void global_avg_pool_forward_kernel(const T* x, T* y, std::int64_t n, std::int64_t hw,
                                               std::int64_t c) {
  for (std::int64_t i = first_index(); i < n * c; i += grid_stride()) {
    const std::int64_t channel = i % c, image = i / c;
    float total = 0.0f;
    for (std::int64_t p = 0; p < hw; ++p) total += to_float(x[(image * hw + p) * c + channel]);
    y[i] = from_float<T>(total / float(hw));
  }
}

template <class T>
__global__ void global_avg_pool_backward_kernel(const T* dy, T* dx, std::int64_t n, std::int64_t hw,
                                                std::int64_t c) {
  for (std::int64_t i = first_index(); i < n * hw * c; i += grid_stride()) {
    const std::int64_t channel = i % c, image = i / (hw * c);
    dx[i] = from_float<T>(to_float(dy[image * c + channel]) / float(hw));
  }
}

// Of the input and the output: the kernels index both.
std::int64_t largest_count(const PoolShape& shape) {
  return shape.n * shape.c * std::max(shape.h * shape.w, shape.out_h * shape.out_w);
}

}  // namespace

void max_pool_forward(Precision type, const void* x, void* y, std::int32_t* argmax,
                      const PoolShape& shape, cudaStream_t stream) {
  const std::int64_t total = shape.n * shape.out_h * shape.out_w * shape.c;
  dispatch(type, [&](auto tag) {
    using T = decltype(tag);
    dispatch_index(largest_count(shape), [&](auto index) {
      using I = decltype(index);
      max_pool_forward_kernel<T, I><<<blocks_for(total), kThreads, 0, stream>>>(
          static_cast<const T*>(x), static_cast<T*>(y), argmax, shape);
    });
  });
  PARITY_CUDA_CHECK_LAUNCH();
}

void max_pool_backward(Precision type, const void* dy, const std::int32_t* argmax, void* dx,
                       const PoolShape& shape, cudaStream_t stream) {
  const std::int64_t total = shape.n * shape.h * shape.w * shape.c;
  dispatch(type, [&](auto tag) {
    using T = decltype(tag);
    dispatch_index(largest_count(shape), [&](auto index) {
      using I = decltype(index);
      max_pool_backward_kernel<T, I><<<blocks_for(total), kThreads, 0, stream>>>(
          static_cast<const T*>(dy), argmax, static_cast<T*>(dx), shape);
    });
  });
  PARITY_CUDA_CHECK_LAUNCH();
}

void global_avg_pool_forward(Precision type, const void* x, void* y, std::int64_t n,
                             std::int64_t hw, std::int64_t c, cudaStream_t stream) {
  dispatch(type, [&](auto tag) {
    using T = decltype(tag);
    global_avg_pool_forward_kernel<<<blocks_for(n * c), kThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<T*>(y), n, hw, c);
  });
  PARITY_CUDA_CHECK_LAUNCH();
}

void global_avg_pool_backward(Precision type, const void* dy, void* dx, std::int64_t n,
                              std::int64_t hw, std::int64_t c, cudaStream_t stream) {
  dispatch(type, [&](auto tag) {
    using T = decltype(tag);
    global_avg_pool_backward_kernel<<<blocks_for(n * hw * c), kThreads, 0, stream>>>(
        static_cast<const T*>(dy), static_cast<T*>(dx), n, hw, c);
  });
  PARITY_CUDA_CHECK_LAUNCH();
}

}  // namespace parity::trainer::cuda::kernels
