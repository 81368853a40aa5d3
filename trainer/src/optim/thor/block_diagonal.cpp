#include "block_diagonal.hpp"

#include <algorithm>

namespace parity::trainer::thor {

BlockDiagonal::BlockDiagonal(std::int64_t dim)
    : dim_(dim), values_(static_cast<std::size_t>(storage_size(dim)), 0.0f) {}

std::int64_t BlockDiagonal::storage_size(std::int64_t dim) {
  const std::int64_t full = dim / kThorBlockSize, rest = dim % kThorBlockSize;
  return full * kThorBlockSize * kThorBlockSize + rest * rest;
}

std::int64_t BlockDiagonal::block_size(std::int64_t b) const {
  return std::min(kThorBlockSize, dim_ - block_start(b));
}

// Every block before the last is full, so block b starts after b full blocks.
std::span<float> BlockDiagonal::block(std::int64_t b) {
  const std::int64_t size = block_size(b);
  return std::span<float>(values_).subspan(
      static_cast<std::size_t>(b * kThorBlockSize * kThorBlockSize), static_cast<std::size_t>(size * size));
}

std::span<const float> BlockDiagonal::block(std::int64_t b) const {
  return const_cast<BlockDiagonal&>(*this).block(b);
}

}  // namespace parity::trainer::thor
