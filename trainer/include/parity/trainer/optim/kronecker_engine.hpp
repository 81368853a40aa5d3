// KroneckerEngine: THOR's arithmetic (optim/thor.hpp, docs/thor.md) where a
// backend keeps its tensors. The preconditioner decides when and with which
// scales; an engine collects each layer's batch statistics, forms the
// Kronecker factors A and G from them, inverts them damped in diagonal blocks
// of kThorBlockSize, and preconditions the weight gradients. The host engine
// (make_host_kronecker_engine) works on host copies through any backend; the
// CUDA backend has its own, which keeps everything on the GPU (cuBLAS and
// cuSOLVER).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "parity/trainer/backend/tensor.hpp"
#include "parity/trainer/nn/weight_geometry.hpp"

namespace parity::trainer {

class Backend;

// MindSpore's split_dim: a factor's diagonal blocks are this many rows and
// columns (the last one smaller); the blocks off the diagonal are dropped.
inline constexpr std::int64_t kThorBlockSize = 128;

// How a factor of `dim` rows is blocked and stored: its diagonal blocks one
// after another, each row-major (every block but the last is full).
struct BlockLayout {
  std::int64_t dim = 0;

  std::int64_t blocks() const { return (dim + kThorBlockSize - 1) / kThorBlockSize; }
  std::int64_t full_blocks() const { return dim / kThorBlockSize; }
  std::int64_t block_start(std::int64_t b) const { return b * kThorBlockSize; }
  std::int64_t block_size(std::int64_t b) const {
    return std::min(kThorBlockSize, dim - block_start(b));
  }
  // Where block b starts in the storage, in floats.
  std::int64_t block_offset(std::int64_t b) const { return b * kThorBlockSize * kThorBlockSize; }
  std::int64_t storage_size() const {
    const std::int64_t rest = dim % kThorBlockSize;
    return full_blocks() * kThorBlockSize * kThorBlockSize + rest * rest;
  }
};

// A THOR layer's weight gradient, read as `rows` x `columns` in the logical
// order (out x in * kernel^2 for a convolution, out x in for the classifier).
struct KroneckerLayerShape {
  std::int64_t rows = 0, columns = 0;
  bool conv = false;
};

// What a layer keeps between calls that the ranks average and a checkpoint
// holds. The statistics are in the engine's own order (ranks of one build
// agree on it); the inverses in BlockLayout's, the same in every engine.
enum class KroneckerPart { kInputStatistic, kOutputStatistic, kAInverse, kGInverse };

// Each factor is `scale` times its Gram matrix: A = a_scale * (im2col of the
// input's batch mean) (...)^T for a convolution, a_scale * the input
// statistic for the classifier; G likewise from the output gradient.
struct FactorScales {
  double a_scale = 1.0, g_scale = 1.0;
};

// A layer's inverses: scale * (block + damping * I)^-1 for every block of
// both of its factors.
struct InverseSettings {
  double damping = 0.0, scale = 1.0;
  std::string layer;  // named in the error for a block that is not positive definite
};

class KroneckerEngine {
 public:
  virtual ~KroneckerEngine() = default;

  // Layer `layer`'s statistics from its input [N, C, H, W] (a convolution's
  // batch mean) or [N, C] / [N, C, 1, 1] (the classifier's x^T x / N).
  virtual void collect_input(std::size_t layer, const WeightGeometry& geometry,
                             const Tensor& input) = 0;
  // From its output gradient: a convolution's batch mean, or the classifier's
  // N dy^T dy.
  virtual void collect_output_grad(std::size_t layer, const Tensor& grad) = 0;
  // The factors of a layer whose statistics were collected; drops those.
  virtual void form_factors(std::size_t layer, const FactorScales& scales) = 0;
  // The damped inverses of every layer's factors, `settings[l]` for layer l;
  // throws parity::Error naming the layer and block that is not positive
  // definite (a factor holding NaN or Inf, or a damping that is not positive).
  virtual void invert(std::span<const InverseSettings> settings) = 0;
  // Each weight gradient, *grads[l] of layer l, becomes G^-1 * grad * A^-1.
  virtual void precondition(std::span<const Tensor* const> grads) = 0;

  // A part's values on the host, and back (the same count; throws
  // parity::Error otherwise).
  virtual std::vector<float> read(std::size_t layer, KroneckerPart part) = 0;
  virtual void write(std::size_t layer, KroneckerPart part, std::span<const float> values) = 0;
};

// The engine of any backend: host copies through backend.to_host and
// backend.write, oneDNN's sgemm and LAPACK's Cholesky in float64.
std::unique_ptr<KroneckerEngine> make_host_kronecker_engine(
    Backend& backend, std::span<const KroneckerLayerShape> layers);

}  // namespace parity::trainer
