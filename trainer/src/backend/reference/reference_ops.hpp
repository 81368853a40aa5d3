// Factories of the float64 reference backend's layer ops, one file each.
#pragma once

#include <memory>

#include "parity/trainer/backend/backend.hpp"

namespace parity::trainer::reference {

std::unique_ptr<LayerOp> make_conv2d(const Conv2dSpec& spec);
std::unique_ptr<LayerOp> make_batch_norm(const BatchNormSpec& spec);
std::unique_ptr<LayerOp> make_relu();
std::unique_ptr<LayerOp> make_max_pool(const PoolSpec& spec);
std::unique_ptr<LayerOp> make_global_avg_pool();
std::unique_ptr<LayerOp> make_linear(const LinearSpec& spec);
std::unique_ptr<ResidualOp> make_residual_add_relu();
// a + b, elementwise (eltwise_ops.cpp).
Tensor sum_of(const Tensor& a, const Tensor& b);

}  // namespace parity::trainer::reference
