#include "parity/trainer/data/float_image.hpp"

#include <algorithm>
#include <string>

#include "parity/core/error.hpp"

namespace parity::trainer {
namespace {

// One output coordinate's two source coordinates and weights, as torch's
// compute_source_index_and_lambda (aten/src/ATen/native/UpSample.h) makes them.
struct LinearTap {
  std::int64_t index0, index1;
  float lambda0, lambda1;
};

std::vector<LinearTap> linear_taps(std::int64_t in_size, std::int64_t out_size) {
  std::vector<LinearTap> taps(static_cast<std::size_t>(out_size));
  // The scale is a float32 quotient; the source coordinate and its fraction
  // are then exact in double before the weight is rounded to float32. This
  // is what torch 1.13's CPU kernel gives, weight for weight (found by
  // resizing one-hot rows); rounding the coordinate to float32 first moves
  // weights near coordinate 500 by up to 3e-5.
  const float scale = static_cast<float>(in_size) / static_cast<float>(out_size);
  for (std::int64_t o = 0; o < out_size; ++o) {
    LinearTap& tap = taps[static_cast<std::size_t>(o)];
    if (in_size == out_size) {
      tap = {o, o, 1.0f, 0.0f};
      continue;
    }
    const double source =
        std::max(0.0, static_cast<double>(scale) * (static_cast<double>(o) + 0.5) - 0.5);
    tap.index0 = static_cast<std::int64_t>(source);
    tap.index1 = tap.index0 + (tap.index0 < in_size - 1 ? 1 : 0);
    tap.lambda1 = static_cast<float>(std::min(source - static_cast<double>(tap.index0), 1.0));
    tap.lambda0 = 1.0f - tap.lambda1;
  }
  return taps;
}

}  // namespace

FloatImage to_float_image(const Sample& sample) {
  const auto expected = static_cast<std::size_t>(sample.height * sample.width * sample.channels);
  if (sample.pixels.size() != expected || sample.channels <= 0)
    throw Error("sample has " + std::to_string(sample.pixels.size()) + " pixel bytes for " +
                std::to_string(sample.height) + "x" + std::to_string(sample.width) + "x" +
                std::to_string(sample.channels));
  FloatImage image(sample.channels, sample.height, sample.width);
  const std::int64_t pixels = sample.height * sample.width;
  for (std::int64_t c = 0; c < sample.channels; ++c) {
    float* out = image.plane(c);
    const std::uint8_t* in = sample.pixels.data() + c;
    for (std::int64_t p = 0; p < pixels; ++p)
      out[p] = static_cast<float>(in[p * sample.channels]) / 255.0f;
  }
  return image;
}

FloatImage crop(const FloatImage& image, const CropBox& box) {
  if (box.height <= 0 || box.width <= 0)
    throw Error("crop of " + std::to_string(box.height) + "x" + std::to_string(box.width) +
                " is empty");
  FloatImage out(image.channels, box.height, box.width);
  // The rows and columns of the box that lie inside the image.
  const std::int64_t y0 = std::max<std::int64_t>(0, -box.top);
  const std::int64_t y1 = std::min(box.height, image.height - box.top);
  const std::int64_t x0 = std::max<std::int64_t>(0, -box.left);
  const std::int64_t x1 = std::min(box.width, image.width - box.left);
  if (y0 >= y1 || x0 >= x1) return out;
  for (std::int64_t c = 0; c < image.channels; ++c) {
    const float* in = image.plane(c);
    float* dst = out.plane(c);
    for (std::int64_t y = y0; y < y1; ++y) {
      const float* row = in + (box.top + y) * image.width + box.left;
      std::copy(row + x0, row + x1, dst + y * box.width + x0);
    }
  }
  return out;
}

FloatImage resize_bilinear(const FloatImage& image, std::int64_t height, std::int64_t width) {
  if (height <= 0 || width <= 0)
    throw Error("resize to " + std::to_string(height) + "x" + std::to_string(width) + " is empty");
  if (height == image.height && width == image.width) return image;
  const auto rows = linear_taps(image.height, height);
  const auto columns = linear_taps(image.width, width);
  FloatImage out(image.channels, height, width);
  for (std::int64_t c = 0; c < image.channels; ++c) {
    const float* in = image.plane(c);
    float* dst = out.plane(c);
    for (std::int64_t y = 0; y < height; ++y) {
      const LinearTap& r = rows[static_cast<std::size_t>(y)];
      const float* top = in + r.index0 * image.width;
      const float* bottom = in + r.index1 * image.width;
      for (std::int64_t x = 0; x < width; ++x) {
        const LinearTap& col = columns[static_cast<std::size_t>(x)];
        // torch's Interpolate<2>: each row interpolated along the width,
        // then the two rows along the height.
        const float upper = top[col.index0] * col.lambda0 + top[col.index1] * col.lambda1;
        const float lower = bottom[col.index0] * col.lambda0 + bottom[col.index1] * col.lambda1;
        dst[y * width + x] = upper * r.lambda0 + lower * r.lambda1;
      }
    }
  }
  return out;
}

void flip_horizontal(FloatImage& image) {
  for (std::int64_t c = 0; c < image.channels; ++c) {
    float* plane = image.plane(c);
    for (std::int64_t y = 0; y < image.height; ++y)
      std::reverse(plane + y * image.width, plane + (y + 1) * image.width);
  }
}

}  // namespace parity::trainer
