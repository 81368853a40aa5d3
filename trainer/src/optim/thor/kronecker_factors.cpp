#include "kronecker_factors.hpp"

#include <dnnl.h>

#include "parity/core/error.hpp"

namespace parity::trainer::thor {

std::vector<float> batch_mean(std::span<const float> values, std::int64_t rows) {
  const std::size_t length = values.size() / static_cast<std::size_t>(rows);
  std::vector<double> sum(length, 0.0);
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = values.data() + static_cast<std::size_t>(r) * length;
    for (std::size_t i = 0; i < length; ++i) sum[i] += row[i];
  }
  std::vector<float> mean(length);
  for (std::size_t i = 0; i < length; ++i) mean[i] = static_cast<float>(sum[i] / double(rows));
  return mean;
}

std::vector<float> transpose(std::span<const float> values, std::int64_t rows, std::int64_t columns) {
  std::vector<float> out(values.size());
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < columns; ++c) out[c * rows + r] = values[r * columns + c];
  return out;
}

std::vector<float> im2col(std::span<const float> image, std::int64_t channels, std::int64_t height,
                          std::int64_t width, const WeightGeometry& g) {
  const std::int64_t out_h = g.output_size(height), out_w = g.output_size(width);
  const std::int64_t pixels = out_h * out_w, k = g.kernel;
  std::vector<float> columns(static_cast<std::size_t>(channels * k * k * pixels), 0.0f);
  for (std::int64_t c = 0; c < channels; ++c)
    for (std::int64_t i = 0; i < k; ++i)
      for (std::int64_t j = 0; j < k; ++j) {
        float* row = columns.data() + ((c * k + i) * k + j) * pixels;
        for (std::int64_t oh = 0; oh < out_h; ++oh) {
          const std::int64_t h = oh * g.stride - g.padding + i;
          if (h < 0 || h >= height) continue;
          for (std::int64_t ow = 0; ow < out_w; ++ow) {
            const std::int64_t w = ow * g.stride - g.padding + j;
            if (w >= 0 && w < width) row[oh * out_w + ow] = image[(c * height + h) * width + w];
          }
        }
      }
  return columns;
}

BlockDiagonal gram_blocks(std::span<const float> m, std::int64_t dim, std::int64_t length, double alpha) {
  BlockDiagonal out(dim);
  for (std::int64_t b = 0; b < out.blocks(); ++b) {
    const std::int64_t size = out.block_size(b);
    const float* rows = m.data() + out.block_start(b) * length;
    if (dnnl_sgemm('N', 'T', size, size, length, static_cast<float>(alpha), rows, length, rows,
                   length, 0.0f, out.block(b).data(), size) != dnnl_success)
      throw Error("oneDNN's sgemm failed on a " + std::to_string(size) + "x" + std::to_string(length) +
                      " Gram block",
                  "THOR factors");
  }
  return out;
}

}  // namespace parity::trainer::thor
