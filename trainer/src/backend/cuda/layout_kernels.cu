// NCHW <-> NHWC conversion of host data (float32), and the explicit zero
// padding of convolutions whose padding cuDNN cannot express (asymmetric),
// in every precision.
#include "kernels.hpp"
#include "launch.cuh"

namespace parity::trainer::cuda::kernels {
namespace {

// [batch, rows, cols] -> [batch, cols, rows]; one thread per element, in the
// output's order (coalesced writes). NCHW -> NHWC transposes (C, H*W) per
// image, NHWC -> NCHW transposes (H*W, C).
__global__ void transpose_kernel(const float* in, float* out, std::int64_t batch,
                                 std::int64_t rows, std::int64_t cols) {
  const std::int64_t total = batch * rows * cols;
  for (std::int64_t i = first_index(); i < total; i += grid_stride()) {
    const std::int64_t row = i % rows, col = (i / rows) % cols, item = i / (rows * cols);
    out[i] = in[(item * rows + row) * cols + col];
  }
}

void transpose(const float* in, float* out, std::int64_t batch, std::int64_t rows,
               std::int64_t cols, cudaStream_t stream) {
  transpose_kernel<<<blocks_for(batch * rows * cols), kThreads, 0, stream>>>(in, out, batch, rows,
                                                                            cols);
  PARITY_CUDA_CHECK_LAUNCH();
}

// Indexed over the padded tensor: border elements are written zero.
template <class T>
__global__ void pad_kernel(const T* in, T* out, PadShape s) {
  const std::int64_t n = s.n, h = s.h, w = s.w, c = s.c, before = s.before;
  const std::int64_t ph = h + before + s.after, pw = w + before + s.after;
  const std::int64_t total = n * ph * pw * c;
  for (std::int64_t i = first_index(); i < total; i += grid_stride()) {
    const std::int64_t channel = i % c, x = (i / c) % pw, y = (i / (c * pw)) % ph,
                       image = i / (c * pw * ph);
    const std::int64_t sy = y - before, sx = x - before;
    out[i] = (sy >= 0 && sy < h && sx >= 0 && sx < w)
                 ? in[((image * h + sy) * w + sx) * c + channel]
                 : from_float<T>(0.0f);
  }
}

template <class T>
__global__ void crop_kernel(const T* padded, T* out, PadShape s) {
  const std::int64_t n = s.n, h = s.h, w = s.w, c = s.c, before = s.before;
  const std::int64_t ph = h + before + s.after, pw = w + before + s.after;
  const std::int64_t total = n * h * w * c;
  for (std::int64_t i = first_index(); i < total; i += grid_stride()) {
    const std::int64_t channel = i % c, x = (i / c) % w, y = (i / (c * w)) % h,
                       image = i / (c * w * h);
    out[i] = padded[((image * ph + y + before) * pw + x + before) * c + channel];
  }
}

}  // namespace

void nchw_to_nhwc(const float* in, float* out, std::int64_t n, std::int64_t c, std::int64_t h,
                  std::int64_t w, cudaStream_t stream) {
  transpose(in, out, n, c, h * w, stream);
}

void nhwc_to_nchw(const float* in, float* out, std::int64_t n, std::int64_t c, std::int64_t h,
                  std::int64_t w, cudaStream_t stream) {
  transpose(in, out, n, h * w, c, stream);
}

void pad_nhwc(Precision type, const void* in, void* out, const PadShape& shape,
              cudaStream_t stream) {
  const std::int64_t grow = shape.before + shape.after;
  const std::int64_t total = shape.n * (shape.h + grow) * (shape.w + grow) * shape.c;
  dispatch(type, [&](auto tag) {
    using T = decltype(tag);
    pad_kernel<<<blocks_for(total), kThreads, 0, stream>>>(static_cast<const T*>(in),
                                                           static_cast<T*>(out), shape);
  });
  PARITY_CUDA_CHECK_LAUNCH();
}

void crop_nhwc(Precision type, const void* padded, void* out, const PadShape& shape,
               cudaStream_t stream) {
  const std::int64_t total = shape.n * shape.h * shape.w * shape.c;
  dispatch(type, [&](auto tag) {
    using T = decltype(tag);
    crop_kernel<<<blocks_for(total), kThreads, 0, stream>>>(static_cast<const T*>(padded),
                                                            static_cast<T*>(out), shape);
  });
  PARITY_CUDA_CHECK_LAUNCH();
}

}  // namespace parity::trainer::cuda::kernels
