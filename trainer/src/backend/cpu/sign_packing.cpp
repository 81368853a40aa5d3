#include "sign_packing.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "parity/core/error.hpp"
#include "parity/importers/grad_probe/sign_bits.hpp"

namespace parity::trainer::cpu {
namespace {

// In a oneDNN strided or blocked layout the offset of a logical element is a
// sum of one term per dimension: its block index times the dimension's
// stride, plus its digit in each inner block that splits the dimension
// times that block's stride. The term of dimension d for index i:
std::int64_t offset_term(const dnnl_memory_desc_t& md, int d, std::int64_t i) {
  const dnnl_blocking_desc_t& blocking = md.format_desc.blocking;
  std::int64_t blocked = 1;  // elements of d inside one block
  for (int k = 0; k < blocking.inner_nblks; ++k)
    if (blocking.inner_idxs[k] == d) blocked *= blocking.inner_blks[k];
  std::int64_t offset = (i / blocked) * blocking.strides[d];
  // Inner blocks from the innermost (stride 1) out, each taking the next digit.
  std::int64_t rest = i % blocked, stride = 1;
  for (int k = blocking.inner_nblks - 1; k >= 0; --k) {
    if (blocking.inner_idxs[k] == d) {
      offset += (rest % blocking.inner_blks[k]) * stride;
      rest /= blocking.inner_blks[k];
    }
    stride *= blocking.inner_blks[k];
  }
  return offset;
}

// The offset of every element of one index of dimension 0 (the rest of the
// dimensions in logical order) relative to that index's first element.
std::vector<std::int64_t> row_offsets(const dnnl_memory_desc_t& md) {
  std::vector<std::int64_t> offsets{0};
  for (int d = 1; d < md.ndims; ++d) {
    std::vector<std::int64_t> next;
    next.reserve(offsets.size() * static_cast<std::size_t>(md.dims[d]));
    for (const std::int64_t before : offsets)
      for (std::int64_t i = 0; i < md.dims[d]; ++i) next.push_back(before + offset_term(md, d, i));
    offsets = std::move(next);
  }
  return offsets;
}

bool dense_plain(const dnnl_memory_desc_t& md) {
  if (md.format_desc.blocking.inner_nblks != 0 || md.offset0 != 0) return false;
  std::int64_t expected = 1;
  for (int d = md.ndims - 1; d >= 0; --d) {
    if (md.dims[d] > 1 && md.format_desc.blocking.strides[d] != expected) return false;
    expected *= md.dims[d];
  }
  return true;
}

}  // namespace

void pack_signs_in_layout(const dnnl::memory::desc& desc, const float* data,
                          std::span<std::uint64_t> words) {
  const dnnl_memory_desc_t& md = desc.data;
  if (md.format_kind != dnnl_blocked || md.data_type != dnnl_f32 || md.ndims < 1)
    throw Error("sign packing needs a float32 tensor in a strided or blocked layout",
                "cpu backend");
  std::int64_t count = 1;
  for (int d = 0; d < md.ndims; ++d) count *= md.dims[d];
  if (static_cast<std::int64_t>(words.size()) != importers::sign_words(count))
    throw Error("sign packing: " + std::to_string(words.size()) + " words for " +
                    std::to_string(count) + " elements",
                "cpu backend");
  if (dense_plain(md)) {
    importers::pack_signs({data, static_cast<std::size_t>(count)}, words);
    return;
  }
  const std::vector<std::int64_t> row = row_offsets(md);
  const auto row_length = static_cast<std::int64_t>(row.size());
  // Rows go to threads in units whose bits start on a word boundary, so
  // that no two threads write one word.
  const std::int64_t rows = md.dims[0], unit = 64 / std::gcd(row_length, std::int64_t{64});
  const std::int64_t units = (rows + unit - 1) / unit;
#pragma omp parallel for schedule(static) if (count > 65536)
  for (std::int64_t u = 0; u < units; ++u) {
    std::uint64_t* out = words.data() + u * unit * row_length / 64;
    std::uint64_t word = 0;
    int bit = 0;
    for (std::int64_t r = u * unit; r < std::min(rows, (u + 1) * unit); ++r) {
      const float* base = data + offset_term(md, 0, r) + md.offset0;
      for (const std::int64_t offset : row) {
        // Ordered: NaN is not > 0, so its bit is 0.
        word |= static_cast<std::uint64_t>(base[offset] > 0.0f) << bit;
        if (++bit == 64) {
          *out++ = word;
          word = 0;
          bit = 0;
        }
      }
    }
    if (bit) *out = word;
  }
}

}  // namespace parity::trainer::cpu
