// FloatImage: one image as 32-bit floats in planes (CHW), the form the
// transforms work on and the loader packs into batches, and the pixel
// operations the transforms are built from. Each operation does what the
// torchvision tensor function named beside it does (torchvision 0.14,
// transforms/functional_tensor.py), written from its documented behaviour.
#pragma once

#include <cstdint>
#include <vector>

#include "parity/trainer/data/dataset.hpp"

namespace parity::trainer {

struct FloatImage {
  std::int64_t channels = 0, height = 0, width = 0;
  std::vector<float> data;  // channels x height x width

  FloatImage() = default;
  FloatImage(std::int64_t c, std::int64_t h, std::int64_t w)
      : channels(c), height(h), width(w), data(static_cast<std::size_t>(c * h * w), 0.0f) {}
  float* plane(std::int64_t c) { return data.data() + c * height * width; }
  const float* plane(std::int64_t c) const { return data.data() + c * height * width; }
};

// A rectangle of an image; top and left may be negative and the box may
// reach past the image (the outside reads as zero).
struct CropBox {
  std::int64_t top = 0, left = 0, height = 0, width = 0;
  bool operator==(const CropBox&) const = default;
};

// 8-bit HWC pixels to floats in [0, 1]: value / 255 in float32, as
// convert_image_dtype(uint8 -> float32) and to_tensor compute it.
FloatImage to_float_image(const Sample& sample);

// crop(img, top, left, height, width): the box's pixels; pixels of the box
// outside the image are 0 (what pad(fill=0) then crop gives).
FloatImage crop(const FloatImage& image, const CropBox& box);

// resize(img, [height, width], BILINEAR, antialias=False), which is
// interpolate(mode="bilinear", align_corners=False): a source coordinate
// (dst + 0.5) * in/out - 0.5 clamped at 0, linear weights (computed to the
// bit as torch's CPU kernel computes them), and no low-pass filter when
// shrinking (PIL images are antialiased; tensors are not by default in
// torchvision 0.14). Interpolation in float32 in torch's order.
FloatImage resize_bilinear(const FloatImage& image, std::int64_t height, std::int64_t width);

// hflip(img): mirrors each row.
void flip_horizontal(FloatImage& image);

}  // namespace parity::trainer
