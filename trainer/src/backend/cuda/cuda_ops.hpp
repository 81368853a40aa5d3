// Factories of the CUDA backend's layer ops, one file each.
#pragma once

#include <memory>

#include "cuda_context.hpp"

namespace parity::trainer::cuda {

std::unique_ptr<LayerOp> make_conv2d(Context& context, const Conv2dSpec& spec);
std::unique_ptr<LayerOp> make_batch_norm(Context& context, const BatchNormSpec& spec);
std::unique_ptr<LayerOp> make_relu(Context& context);
std::unique_ptr<ResidualOp> make_residual_add_relu(Context& context);
std::unique_ptr<LayerOp> make_max_pool(Context& context, const PoolSpec& spec);
std::unique_ptr<LayerOp> make_global_avg_pool(Context& context);
std::unique_ptr<LayerOp> make_linear(Context& context, const LinearSpec& spec);

// Throws unless `x` is [N, channels, H, W].
void check_nchw(const Tensor& x, std::int64_t channels, const char* op);

}  // namespace parity::trainer::cuda
