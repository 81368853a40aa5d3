#include "block_diagonal.hpp"

namespace parity::trainer::thor {

BlockDiagonal::BlockDiagonal(std::int64_t dim)
    : layout_{dim}, values_(static_cast<std::size_t>(layout_.storage_size()), 0.0f) {}

std::span<float> BlockDiagonal::block(std::int64_t b) {
  const std::int64_t size = block_size(b);
  return std::span<float>(values_).subspan(static_cast<std::size_t>(layout_.block_offset(b)),
                                           static_cast<std::size_t>(size * size));
}

std::span<const float> BlockDiagonal::block(std::int64_t b) const {
  return const_cast<BlockDiagonal&>(*this).block(b);
}

}  // namespace parity::trainer::thor
