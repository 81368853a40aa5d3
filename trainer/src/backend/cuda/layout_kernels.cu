// NCHW <-> NHWC conversion of host data, and the explicit zero padding of
// convolutions whose padding cuDNN cannot express (asymmetric).
#include "kernels.hpp"
#include "launch.cuh"

namespace parity::trainer::cuda::kernels {
namespace {

// One thread per element, indexed in the output's order (coalesced writes).
__global__ void nchw_to_nhwc_kernel(const float* in, float* out, std::int64_t n, std::int64_t c,
                                    std::int64_t hw) {
  const std::int64_t total = n * c * hw;
  for (std::int64_t i = first_index(); i < total; i += grid_stride()) {
    const std::int64_t channel = i % c, pixel = (i / c) % hw, image = i / (c * hw);
    out[i] = in[(image * c + channel) * hw + pixel];
  }
}

__global__ void nhwc_to_nchw_kernel(const float* in, float* out, std::int64_t n, std::int64_t c,
                                    std::int64_t hw) {
  const std::int64_t total = n * c * hw;
  for (std::int64_t i = first_index(); i < total; i += grid_stride()) {
    const std::int64_t pixel = i % hw, channel = (i / hw) % c, image = i / (c * hw);
    out[i] = in[(image * hw + pixel) * c + channel];
  }
}

// Indexed over the padded tensor: border elements are written zero.
__global__ void pad_kernel(const float* in, float* out, std::int64_t n, std::int64_t h,
                           std::int64_t w, std::int64_t c, std::int64_t before,
                           std::int64_t after) {
  const std::int64_t ph = h + before + after, pw = w + before + after;
  const std::int64_t total = n * ph * pw * c;
  for (std::int64_t i = first_index(); i < total; i += grid_stride()) {
    const std::int64_t channel = i % c, x = (i / c) % pw, y = (i / (c * pw)) % ph,
                       image = i / (c * pw * ph);
    const std::int64_t sy = y - before, sx = x - before;
    out[i] = (sy >= 0 && sy < h && sx >= 0 && sx < w)
                 ? in[((image * h + sy) * w + sx) * c + channel]
                 : 0.0f;
  }
}

__global__ void crop_kernel(const float* padded, float* out, std::int64_t n, std::int64_t h,
                            std::int64_t w, std::int64_t c, std::int64_t before,
                            std::int64_t after) {
  const std::int64_t ph = h + before + after, pw = w + before + after;
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
  nchw_to_nhwc_kernel<<<blocks_for(n * c * h * w), kThreads, 0, stream>>>(in, out, n, c, h * w);
  PARITY_CUDA_CHECK_LAUNCH();
}

void nhwc_to_nchw(const float* in, float* out, std::int64_t n, std::int64_t c, std::int64_t h,
                  std::int64_t w, cudaStream_t stream) {
  nhwc_to_nchw_kernel<<<blocks_for(n * c * h * w), kThreads, 0, stream>>>(in, out, n, c, h * w);
  PARITY_CUDA_CHECK_LAUNCH();
}

void pad_nhwc(const float* in, float* out, std::int64_t n, std::int64_t h, std::int64_t w,
              std::int64_t c, std::int64_t before, std::int64_t after, cudaStream_t stream) {
  const std::int64_t total = n * (h + before + after) * (w + before + after) * c;
  pad_kernel<<<blocks_for(total), kThreads, 0, stream>>>(in, out, n, h, w, c, before, after);
  PARITY_CUDA_CHECK_LAUNCH();
}

void crop_nhwc(const float* padded, float* out, std::int64_t n, std::int64_t h, std::int64_t w,
               std::int64_t c, std::int64_t before, std::int64_t after, cudaStream_t stream) {
  crop_kernel<<<blocks_for(n * h * w * c), kThreads, 0, stream>>>(padded, out, n, h, w, c, before,
                                                                  after);
  PARITY_CUDA_CHECK_LAUNCH();
}

}  // namespace parity::trainer::cuda::kernels
