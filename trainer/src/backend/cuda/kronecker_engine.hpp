// The CUDA backend's KroneckerEngine (optim/kronecker_engine.hpp): THOR's
// statistics, factors and inverses stay on the GPU. Batch means and im2col
// are our kernels (thor_kernels.cu); the factors' Gram blocks and the
// two-sided preconditioning are cuBLAS products, batched over a factor's full
// blocks; the damped inverses of every block of every layer are one batch:
// cuSOLVER's Cholesky (potrfBatched), a triangular solve against the identity
// and L^-T L^-1, in float64 (MindSpore's GPU path: CholeskyTrsm, then X^T X).
#pragma once

#include <memory>
#include <span>

#include "cuda_context.hpp"
#include "parity/trainer/optim/kronecker_engine.hpp"

namespace parity::trainer::cuda {

std::unique_ptr<KroneckerEngine> make_kronecker_engine(Context& context,
                                                       std::span<const KroneckerLayerShape> layers);

}  // namespace parity::trainer::cuda
