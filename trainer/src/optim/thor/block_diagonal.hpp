// BlockDiagonal: the diagonal blocks of a square matrix on the host, stored
// as BlockLayout says (optim/kronecker_engine.hpp): THOR's approximation of a
// Kronecker factor and of its inverse (MindSpore's split_dim 128; docs/thor.md).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "parity/trainer/optim/kronecker_engine.hpp"

namespace parity::trainer::thor {

class BlockDiagonal {
 public:
  explicit BlockDiagonal(std::int64_t dim = 0);

  std::int64_t dim() const { return layout_.dim; }
  std::int64_t blocks() const { return layout_.blocks(); }
  std::int64_t block_start(std::int64_t b) const { return layout_.block_start(b); }
  std::int64_t block_size(std::int64_t b) const { return layout_.block_size(b); }
  // Block b, row-major (it is symmetric wherever THOR uses it).
  std::span<float> block(std::int64_t b);
  std::span<const float> block(std::int64_t b) const;
  // All blocks, one after another: what a checkpoint and an AllReduce hold.
  std::span<float> values() { return values_; }
  std::span<const float> values() const { return values_; }

 private:
  BlockLayout layout_;
  std::vector<float> values_;
};

}  // namespace parity::trainer::thor
