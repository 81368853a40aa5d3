#include "sign_packing.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "parity/core/error.hpp"
#include "parity/importers/grad_probe/sign_bits.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
    std::vector<std::int64_t> terms;
    for (std::int64_t i = 0; i < md.dims[d]; ++i) terms.push_back(offset_term(md, d, i));
    std::vector<std::int64_t> next;
    next.reserve(offsets.size() * terms.size());
    for (const std::int64_t before : offsets)
      for (const std::int64_t term : terms) next.push_back(before + term);
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

// Rows go to threads in units whose bits start on a word boundary, so that
// no two threads write one word: a multiple of `rows_at_least` rows.
std::int64_t word_aligned_unit(std::int64_t row_length, std::int64_t rows_at_least) {
  const std::int64_t aligned = 64 / std::gcd(row_length, std::int64_t{64});
  return std::lcm(aligned, rows_at_least);
}

// Any layout: every element found through its offset, one at a time.
void pack_by_offsets(const dnnl_memory_desc_t& md, const float* data,
                     std::span<std::uint64_t> words, std::int64_t count) {
  const std::vector<std::int64_t> row = row_offsets(md);
  const auto row_length = static_cast<std::int64_t>(row.size());
  const std::int64_t rows = md.dims[0], unit = word_aligned_unit(row_length, 1);
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

#if defined(__SSE2__)
// ORs the first `bits` bits of `source` into `target` from bit `at`.
void or_bits(const std::uint64_t* source, std::int64_t bits, std::uint64_t* target,
             std::int64_t at) {
  const int shift = static_cast<int>(at % 64);
  std::uint64_t* out = target + at / 64;
  for (std::int64_t w = 0; w * 64 < bits; ++w) {
    const int valid = static_cast<int>(std::min<std::int64_t>(64, bits - w * 64));
    const std::uint64_t value =
        valid == 64 ? source[w] : source[w] & ((std::uint64_t{1} << valid) - 1);
    out[w] |= value << shift;
    if (shift && valid > 64 - shift) out[w + 1] |= value >> (64 - shift);
  }
}

// The 16 sign bits of 16 consecutive floats, lowest first.
std::uint16_t sign_mask_16(const float* x) {
  const __m128 zero = _mm_setzero_ps();
  const int a = _mm_movemask_ps(_mm_cmpgt_ps(_mm_loadu_ps(x), zero));
  const int b = _mm_movemask_ps(_mm_cmpgt_ps(_mm_loadu_ps(x + 4), zero));
  const int c = _mm_movemask_ps(_mm_cmpgt_ps(_mm_loadu_ps(x + 8), zero));
  const int d = _mm_movemask_ps(_mm_cmpgt_ps(_mm_loadu_ps(x + 12), zero));
  return static_cast<std::uint16_t>(a | b << 4 | c << 8 | d << 12);
}

// Transposes 16 columns' 16-bit masks (bit k: row k) into 16 bits of each
// row: the masks' bytes side by side, row k's bit moved to the top of each
// byte, read out 16 columns at once by movemask. ORs row k's bits into
// rows[k * row_words] from column `first_column` (a multiple of 16).
void transpose_16(const std::uint16_t* masks, std::uint64_t* rows, std::int64_t row_words,
                  std::int64_t first_column) {
  const __m128i m0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(masks));
  const __m128i m1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(masks + 8));
  const __m128i low_byte = _mm_set1_epi16(0xFF);
  __m128i halves[2] = {
      _mm_packus_epi16(_mm_and_si128(m0, low_byte), _mm_and_si128(m1, low_byte)),  // rows 0-7
      _mm_packus_epi16(_mm_srli_epi16(m0, 8), _mm_srli_epi16(m1, 8))};             // rows 8-15
  const std::int64_t word = first_column / 64, shift = first_column % 64;
  for (int half = 0; half < 2; ++half)
    for (int k = 7; k >= 0; --k) {
      const auto bits = static_cast<std::uint64_t>(_mm_movemask_epi8(halves[half]));
      halves[half] = _mm_add_epi8(halves[half], halves[half]);
      rows[(half * 8 + k) * row_words + word] |= bits << shift;
    }
}

// The convolution weights' layouts (OIhw16i16o, Ohwi16o, ...): the
// innermost block, 16 floats in a row, is 16 consecutive rows (dimension 0)
// at one column. Each block of 16 rows goes column by column, one 16-bit
// mask a column, and the masks are transposed into the rows' bits.
void pack_row_blocks(const dnnl_memory_desc_t& md, const float* data,
                     std::span<std::uint64_t> words) {
  const std::vector<std::int64_t> column = row_offsets(md);
  const auto columns = static_cast<std::int64_t>(column.size());
  const std::int64_t rows = md.dims[0], block_rows = 16;
  const std::int64_t unit = word_aligned_unit(columns, block_rows);
  const std::int64_t units = (rows + unit - 1) / unit;
  const std::int64_t padded_columns = (columns + 15) / 16 * 16;
  const std::int64_t row_words = (padded_columns + 63) / 64;
  std::fill(words.begin(), words.end(), 0);
#pragma omp parallel for schedule(static) if (rows * columns > 65536)
  for (std::int64_t u = 0; u < units; ++u) {
    std::vector<std::uint16_t> masks(static_cast<std::size_t>(padded_columns), 0);
    std::vector<std::uint64_t> row_bits(static_cast<std::size_t>(block_rows * row_words));
    for (std::int64_t first = u * unit; first < std::min(rows, (u + 1) * unit);
         first += block_rows) {
      const float* base = data + offset_term(md, 0, first) + md.offset0;
      for (std::int64_t j = 0; j < columns; ++j)
        masks[static_cast<std::size_t>(j)] = sign_mask_16(base + column[static_cast<std::size_t>(j)]);
      std::fill(row_bits.begin(), row_bits.end(), 0);
      for (std::int64_t j = 0; j < padded_columns; j += 16)
        transpose_16(&masks[static_cast<std::size_t>(j)], row_bits.data(), row_words, j);
      // Rows past the last are the block's padding.
      for (std::int64_t k = 0; k < std::min(block_rows, rows - first); ++k)
        or_bits(&row_bits[static_cast<std::size_t>(k * row_words)], columns, words.data(),
                (first + k) * columns);
    }
  }
}

// Whether pack_row_blocks reads this layout: dimension 0 split by exactly
// one inner block, the innermost, of 16.
bool rows_in_blocks_of_16(const dnnl_memory_desc_t& md) {
  const dnnl_blocking_desc_t& blocking = md.format_desc.blocking;
  const int n = blocking.inner_nblks;
  if (n == 0 || blocking.inner_idxs[n - 1] != 0 || blocking.inner_blks[n - 1] != 16) return false;
  for (int k = 0; k < n - 1; ++k)
    if (blocking.inner_idxs[k] == 0) return false;
  return true;
}
#endif

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
#if defined(__SSE2__)
  if (rows_in_blocks_of_16(md)) {
    pack_row_blocks(md, data, words);
    return;
  }
#endif
  pack_by_offsets(md, data, words, count);
}

}  // namespace parity::trainer::cpu
