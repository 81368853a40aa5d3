// Max pooling with the CPU backend's (oneDNN's) rules: the first maximum of
// the window wins ties, and a NaN never wins (oneDNN replaces the running
// maximum, which starts at the lowest float, only by a greater value), and a
// deterministic backward; global average pooling. Every precision computes
// in float32; max pooling stores an input value exactly.
#include <cfloat>

#include "kernels.hpp"
#include "launch.cuh"

namespace parity::trainer::cuda::kernels {
namespace {

// One thread per output element [n, oh, ow, c].
template <class T>
__global__ void max_pool_forward_kernel(const T* x, T* y, std::int32_t* argmax, PoolShape s) {
  const std::int64_t total = s.n * s.out_h * s.out_w * s.c;
  for (std::int64_t i = first_index(); i < total; i += grid_stride()) {
    const std::int64_t channel = i % s.c, ox = (i / s.c) % s.out_w,
                       oy = (i / (s.c * s.out_w)) % s.out_h, image = i / (s.c * s.out_w * s.out_h);
    const std::int64_t y0 = oy * s.stride - s.padding, x0 = ox * s.stride - s.padding;
    // As on the CPU, a window of NaN or -inf alone yields the lowest float
    // and sends its gradient to its top-left position: nowhere (-1) when
    // that is padding.
    float best = -FLT_MAX;
    std::int64_t best_at = y0 >= 0 && x0 >= 0 ? y0 * s.w + x0 : -1;
    for (std::int64_t ky = 0; ky < s.kernel; ++ky) {
      const std::int64_t row = y0 + ky;
      if (row < 0 || row >= s.h) continue;
      for (std::int64_t kx = 0; kx < s.kernel; ++kx) {
        const std::int64_t col = x0 + kx;
        if (col < 0 || col >= s.w) continue;
        const float v = to_float(x[((image * s.h + row) * s.w + col) * s.c + channel]);
        if (v > best) {
          best = v;
          best_at = row * s.w + col;
        }
      }
    }
    y[i] = from_float<T>(best);
    argmax[i] = std::int32_t(best_at);
  }
}

// One thread per input element: the sum of the gradients of the windows
// whose maximum it was, visited in a fixed order.
template <class T>
__global__ void max_pool_backward_kernel(const T* dy, const std::int32_t* argmax, T* dx,
                                         PoolShape s) {
  const std::int64_t total = s.n * s.h * s.w * s.c;
  for (std::int64_t i = first_index(); i < total; i += grid_stride()) {
    const std::int64_t channel = i % s.c, col = (i / s.c) % s.w, row = (i / (s.c * s.w)) % s.h,
                       image = i / (s.c * s.w * s.h);
    // Windows oy with oy * stride - padding <= row <= oy * stride - padding + kernel - 1.
    const std::int64_t py = row + s.padding, px = col + s.padding;
    const std::int64_t oy_begin = py >= s.kernel ? (py - s.kernel) / s.stride + 1 : 0;
    const std::int64_t ox_begin = px >= s.kernel ? (px - s.kernel) / s.stride + 1 : 0;
    const std::int64_t oy_end = min(py / s.stride + 1, s.out_h),
                       ox_end = min(px / s.stride + 1, s.out_w);
    const std::int32_t here = std::int32_t(row * s.w + col);
    float total_grad = 0.0f;
    for (std::int64_t oy = oy_begin; oy < oy_end; ++oy)
      for (std::int64_t ox = ox_begin; ox < ox_end; ++ox) {
        const std::int64_t o = ((image * s.out_h + oy) * s.out_w + ox) * s.c + channel;
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

}  // namespace

void max_pool_forward(Precision type, const void* x, void* y, std::int32_t* argmax,
                      const PoolShape& shape, cudaStream_t stream) {
  const std::int64_t total = shape.n * shape.out_h * shape.out_w * shape.c;
  dispatch(type, [&](auto tag) {
    using T = decltype(tag);
    max_pool_forward_kernel<<<blocks_for(total), kThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<T*>(y), argmax, shape);
  });
  PARITY_CUDA_CHECK_LAUNCH();
}

void max_pool_backward(Precision type, const void* dy, const std::int32_t* argmax, void* dx,
                       const PoolShape& shape, cudaStream_t stream) {
  const std::int64_t total = shape.n * shape.h * shape.w * shape.c;
  dispatch(type, [&](auto tag) {
    using T = decltype(tag);
    max_pool_backward_kernel<<<blocks_for(total), kThreads, 0, stream>>>(
        static_cast<const T*>(dy), argmax, static_cast<T*>(dx), shape);
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
