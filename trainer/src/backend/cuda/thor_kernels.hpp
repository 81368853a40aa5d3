// Launchers of the kernels behind the CUDA backend's THOR engine
// (kronecker_engine.cpp), each queued on `stream`. Plain C++17, shared by
// the host code (g++) and thor_kernels.cu (nvcc).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "parity/trainer/backend/precision.hpp"

namespace parity::trainer::cuda::kernels {

// mean[k] = the mean over r of values[r, k], a row-major [rows, length]
// tensor of `type`, summed in float64 (as the host engine sums).
void batch_mean(Precision type, const void* values, float* mean, std::int64_t rows,
                std::int64_t length, cudaStream_t stream);

// The columns a convolution multiplies its weight by, from one image stored
// [height, width, channels] (NHWC without N): row (c * kernel + i) * kernel + j
// (the weight's logical order), one column per output pixel, zero where the
// kernel hangs over the padding. `columns` is rows x out_h * out_w.
struct Im2colShape {
  std::int64_t channels, height, width, kernel, stride, padding, out_h, out_w;
};
void im2col_hwc(const float* image, float* columns, const Im2colShape& shape, cudaStream_t stream);

// THOR's inversion works on batches of kThorBlockSize-square float64
// matrices, the same size for every block so that cuSOLVER and cuBLAS take
// them as one batch: a smaller block is padded with the identity, whose
// inverse is the identity again and is dropped.
constexpr int kPaddedBlock = 128;

// A damped block to invert: `source` is `size` x `size` floats.
struct DampedBlock {
  const float* source;
  std::int32_t size;
  double damping;
};
// factors[b] = block b + damping * I, padded; identities[b] = I; and
// non_finite[b] set to 1 where block b holds a NaN or an Inf (left as it is
// elsewhere: the caller zeroes it). `blocks` is a device array of `count`.
void pack_damped_blocks(const DampedBlock* blocks, std::int64_t count, double* factors,
                        double* identities, int* non_finite, cudaStream_t stream);

// Where an inverse goes: `target` is `size` x `size` floats, written as
// scale * the lower triangle of inverses[b], mirrored (exactly symmetric).
struct InverseBlock {
  float* target;
  std::int32_t size;
  double scale;
};
void unpack_inverse_blocks(const InverseBlock* blocks, std::int64_t count, const double* inverses,
                           cudaStream_t stream);

}  // namespace parity::trainer::cuda::kernels
