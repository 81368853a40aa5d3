// Per-channel mean and variance of a batch, accumulated in float64, for batch
// normalization's training forward. oneDNN's own statistics sum each channel
// in float32, so their batch mean is several times less exact than
// PyTorch's (which accumulates in double on the CPU); through the
// normalized outputs the error becomes a bias that every later layer's
// statistics inherit, and the running means end up 3-7x further from a
// float64 run than PyTorch's. These are as exact as PyTorch's.
#pragma once

#include <dnnl.hpp>

#include <span>

namespace parity::trainer::cpu {

// `mean` and `variance` (biased: divided by N*H*W) of each channel of the
// [N, C, H, W] float32 tensor `data` laid out as `desc`: plain with any
// strides (NCHW, NHWC) or blocked over channels only (nChw8c, nChw16c).
// Both spans hold C values. One pass over the tensor.
void batch_statistics(const dnnl::memory::desc& desc, const float* data, std::span<double> mean,
                      std::span<double> variance);

}  // namespace parity::trainer::cpu
