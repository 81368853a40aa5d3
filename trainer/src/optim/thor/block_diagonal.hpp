// BlockDiagonal: the diagonal blocks of a square matrix cut into blocks of
// kThorBlockSize rows and columns (the last block smaller), the off-diagonal
// blocks dropped: THOR's approximation of a Kronecker factor and of its
// inverse (MindSpore's split_dim 128; docs/thor.md).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace parity::trainer::thor {

inline constexpr std::int64_t kThorBlockSize = 128;

class BlockDiagonal {
 public:
  explicit BlockDiagonal(std::int64_t dim = 0);

  // The floats that hold the blocks of a matrix of `dim` rows.
  static std::int64_t storage_size(std::int64_t dim);

  std::int64_t dim() const { return dim_; }
  std::int64_t blocks() const { return (dim_ + kThorBlockSize - 1) / kThorBlockSize; }
  std::int64_t block_start(std::int64_t b) const { return b * kThorBlockSize; }
  std::int64_t block_size(std::int64_t b) const;
  // Block b, row-major (it is symmetric wherever THOR uses it).
  std::span<float> block(std::int64_t b);
  std::span<const float> block(std::int64_t b) const;
  // All blocks, one after another: what a checkpoint and an AllReduce hold.
  std::span<float> values() { return values_; }
  std::span<const float> values() const { return values_; }

 private:
  std::int64_t dim_;
  std::vector<float> values_;
};

}  // namespace parity::trainer::thor
