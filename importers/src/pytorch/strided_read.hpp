// Reading a strided view of a storage (a PyTorch tensor: offset, shape,
// strides in elements) into C-contiguous bytes, fetching from the file only
// the part of the storage the view covers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace parity::importers {

struct StridedView {
  std::span<const std::int64_t> shape;
  std::span<const std::int64_t> strides;  // non-negative, one per dimension
  std::int64_t offset = 0;                // of the first element
  std::size_t element_size = 1;
};

// Fills `out` with storage bytes [offset, offset + out.size()).
using StorageByteReader = std::function<void(std::uint64_t offset, std::span<std::byte> out)>;

// The view's elements in C order. The caller has checked that the view lies
// inside the storage. A contiguous view is one read; otherwise the covered
// span is read once when it is at most about twice the tensor (or when
// `read_covered_span` is set, for storages that are costly to read in
// pieces), and in runs of adjacent elements when it is larger (a view that
// takes every 100th element of a large storage).
std::vector<std::byte> read_strided(const StridedView& view, const StorageByteReader& read,
                                    bool read_covered_span);

}  // namespace parity::importers
