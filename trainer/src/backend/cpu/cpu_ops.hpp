// Factories of the CPU backend's layer ops, one file each.
#pragma once

#include <memory>

#include "cpu_context.hpp"

namespace parity::trainer::cpu {

std::unique_ptr<LayerOp> make_conv2d(Context& context, const Conv2dSpec& spec);
std::unique_ptr<LayerOp> make_batch_norm(Context& context, const BatchNormSpec& spec);
std::unique_ptr<LayerOp> make_relu(Context& context);
std::unique_ptr<LayerOp> make_max_pool(Context& context, const PoolSpec& spec);
std::unique_ptr<LayerOp> make_global_avg_pool(Context& context);
std::unique_ptr<LayerOp> make_linear(Context& context, const LinearSpec& spec);
std::unique_ptr<ResidualOp> make_residual_add_relu(Context& context);

}  // namespace parity::trainer::cpu
