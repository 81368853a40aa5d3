#include "batch_statistics.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "parity/core/error.hpp"

namespace parity::trainer::cpu {
namespace {

// Where the elements of one group of channels lie: `group_width` consecutive
// channels are as many consecutive floats at each (n, h, w), from
// `g*group_stride + n*n_stride + h*h_stride + w*w_stride` for group g. A
// layout blocked over channels has one group per block, NHWC one group of
// all channels, NCHW one group per channel.
struct Layout {
  std::int64_t batch = 0, channels = 0, height = 0, width = 0;
  std::int64_t group_width = 1;
  std::int64_t group_stride = 0, n_stride = 0, h_stride = 0, w_stride = 0;

  std::int64_t groups() const { return (channels + group_width - 1) / group_width; }
  // Channels of group g that exist: a blocked layout pads its last block.
  std::int64_t valid(std::int64_t g) const {
    return std::min(group_width, channels - g * group_width);
  }
};

Layout layout_of(const dnnl::memory::desc& desc) {
  const dnnl_memory_desc_t& md = desc.data;
  if (md.ndims != 4 || md.format_kind != dnnl_blocked || md.data_type != dnnl_f32)
    throw Error("batch statistics need a 4-d float32 tensor in a strided or blocked layout",
                "cpu backend");
  const dnnl_blocking_desc_t& blocking = md.format_desc.blocking;
  const dnnl_dims_t& s = blocking.strides;
  Layout l{md.dims[0], md.dims[1], md.dims[2], md.dims[3]};
  l.n_stride = s[0];
  l.h_stride = s[2];
  l.w_stride = s[3];
  if (blocking.inner_nblks == 1 && blocking.inner_idxs[0] == 1) {
    l.group_width = blocking.inner_blks[0];
    l.group_stride = s[1];  // the stride of the block index
  } else if (blocking.inner_nblks != 0) {
    throw Error("batch statistics: a layout blocked over more than the channels", "cpu backend");
  } else if (s[1] == 1) {
    l.group_width = l.channels;
  } else {
    l.group_stride = s[1];
  }
  return l;
}

// For channel i of group g (i < group_width), the float64 sums over (n, h, w)
// of d = x - shift[i] and of d * d, in one pass over the group's elements.
// Built for AVX-512 and AVX2 too (chosen when the program loads), as the
// float64 lanes are half as wide as oneDNN's float32 ones.
__attribute__((target_clones("avx512f", "avx2", "default"))) void accumulate_group(
    const Layout& l, const float* data, std::int64_t g, const double* shift, double* sums,
    double* squares) {
  const std::int64_t width = l.group_width;
  std::fill(sums, sums + width, 0.0);
  std::fill(squares, squares + width, 0.0);
  for (std::int64_t n = 0; n < l.batch; ++n)
    for (std::int64_t h = 0; h < l.height; ++h) {
      const float* row = data + g * l.group_stride + n * l.n_stride + h * l.h_stride;
      for (std::int64_t w = 0; w < l.width; ++w) {
        const float* x = row + w * l.w_stride;
        for (std::int64_t i = 0; i < width; ++i) {
          const double d = double(x[i]) - shift[i];
          sums[i] += d;
          squares[i] += d * d;
        }
      }
    }
}

}  // namespace

void batch_statistics(const dnnl::memory::desc& desc, const float* data, std::span<double> mean,
                      std::span<double> variance) {
  const Layout l = layout_of(desc);
  if (std::int64_t(mean.size()) != l.channels || std::int64_t(variance.size()) != l.channels)
    throw Error("batch statistics: the tensor has " + std::to_string(l.channels) +
                    " channels, the statistics " + std::to_string(mean.size()),
                "cpu backend");
  const double count = double(l.batch) * double(l.height) * double(l.width);
  const auto width = static_cast<std::size_t>(l.group_width);
#pragma omp parallel for schedule(static)
  for (std::int64_t g = 0; g < l.groups(); ++g) {
    // Sums of deviations from one of the channel's own values, so that the
    // variance is no difference of two large numbers (a shifted-data sum).
    std::vector<double> shift(width, 0.0), sums(width), squares(width);
    const float* first_values = data + g * l.group_stride;
    const std::int64_t first = g * l.group_width, valid = l.valid(g);
    for (std::int64_t i = 0; i < valid; ++i) shift[i] = first_values[i];
    accumulate_group(l, data, g, shift.data(), sums.data(), squares.data());
    for (std::int64_t i = 0; i < valid; ++i) {
      const double deviation = sums[i] / count;
      mean[first + i] = shift[i] + deviation;
      variance[first + i] = std::max(0.0, squares[i] / count - deviation * deviation);
    }
  }
}

}  // namespace parity::trainer::cpu
