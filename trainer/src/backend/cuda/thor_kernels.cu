#include "launch.cuh"
#include "thor_kernels.hpp"

namespace parity::trainer::cuda::kernels {
namespace {

template <class T>
__global__ void batch_mean_kernel(const T* values, float* mean, std::int64_t rows,
                                  std::int64_t length) {
  for (std::int64_t k = first_index(); k < length; k += grid_stride()) {
    double total = 0.0;
    for (std::int64_t r = 0; r < rows; ++r) total += double(to_float(values[r * length + k]));
    mean[k] = float(total / double(rows));
  }
}

__global__ void im2col_hwc_kernel(const float* image, float* columns, Im2colShape s) {
  const std::int64_t pixels = s.out_h * s.out_w;
  const std::int64_t count = s.channels * s.kernel * s.kernel * pixels;
  for (std::int64_t index = first_index(); index < count; index += grid_stride()) {
    const std::int64_t row = index / pixels, pixel = index % pixels;
    const std::int64_t c = row / (s.kernel * s.kernel), i = row / s.kernel % s.kernel,
                       j = row % s.kernel;
    const std::int64_t h = pixel / s.out_w * s.stride - s.padding + i;
    const std::int64_t w = pixel % s.out_w * s.stride - s.padding + j;
    const bool inside = h >= 0 && h < s.height && w >= 0 && w < s.width;
    columns[index] = inside ? image[(h * s.width + w) * s.channels + c] : 0.0f;
  }
}

constexpr std::int64_t kBlockElements = std::int64_t(kPaddedBlock) * kPaddedBlock;

__global__ void pack_damped_blocks_kernel(const DampedBlock* blocks, std::int64_t count,
                                          double* factors, double* identities, int* non_finite) {
  for (std::int64_t index = first_index(); index < count * kBlockElements; index += grid_stride()) {
    const DampedBlock block = blocks[index / kBlockElements];
    const std::int64_t element = index % kBlockElements;
    const int row = int(element / kPaddedBlock), col = int(element % kPaddedBlock);
    const bool diagonal = row == col;
    double value = diagonal ? 1.0 : 0.0;
    if (row < block.size && col < block.size) {
      value = double(block.source[row * block.size + col]) + (diagonal ? block.damping : 0.0);
      if (!isfinite(value)) non_finite[index / kBlockElements] = 1;
    }
    factors[index] = value;
    identities[index] = diagonal ? 1.0 : 0.0;
  }
}

__global__ void unpack_inverse_blocks_kernel(const InverseBlock* blocks, std::int64_t count,
                                             const double* inverses) {
  for (std::int64_t index = first_index(); index < count * kBlockElements; index += grid_stride()) {
    const InverseBlock block = blocks[index / kBlockElements];
    const std::int64_t element = index % kBlockElements;
    const int row = int(element / kPaddedBlock), col = int(element % kPaddedBlock);
    if (row >= block.size || col >= block.size) continue;
    // The lower triangle, column-major: row `larger`, column `smaller`.
    const int larger = row > col ? row : col, smaller = row > col ? col : row;
    const double value = inverses[index - element + std::int64_t(smaller) * kPaddedBlock + larger];
    block.target[row * block.size + col] = float(block.scale * value);
  }
}

}  // namespace

void batch_mean(Precision type, const void* values, float* mean, std::int64_t rows,
                std::int64_t length, cudaStream_t stream) {
  dispatch(type, [&](auto tag) {
    using T = decltype(tag);
    batch_mean_kernel<<<blocks_for(length), kThreads, 0, stream>>>(static_cast<const T*>(values),
                                                                   mean, rows, length);
  });
  PARITY_CUDA_CHECK_LAUNCH();
}

void im2col_hwc(const float* image, float* columns, const Im2colShape& shape, cudaStream_t stream) {
  const std::int64_t count =
      shape.channels * shape.kernel * shape.kernel * shape.out_h * shape.out_w;
  im2col_hwc_kernel<<<blocks_for(count), kThreads, 0, stream>>>(image, columns, shape);
  PARITY_CUDA_CHECK_LAUNCH();
}

void pack_damped_blocks(const DampedBlock* blocks, std::int64_t count, double* factors,
                        double* identities, int* non_finite, cudaStream_t stream) {
  pack_damped_blocks_kernel<<<blocks_for(count * kBlockElements), kThreads, 0, stream>>>(
      blocks, count, factors, identities, non_finite);
  PARITY_CUDA_CHECK_LAUNCH();
}

void unpack_inverse_blocks(const InverseBlock* blocks, std::int64_t count, const double* inverses,
                           cudaStream_t stream) {
  unpack_inverse_blocks_kernel<<<blocks_for(count * kBlockElements), kThreads, 0, stream>>>(
      blocks, count, inverses);
  PARITY_CUDA_CHECK_LAUNCH();
}

}  // namespace parity::trainer::cuda::kernels
