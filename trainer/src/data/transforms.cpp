#include "parity/trainer/data/transforms.hpp"

#include <cmath>
#include <cstdio>

#include "parity/core/error.hpp"

namespace parity::trainer {
namespace {

// Python's round() to an integer: half to even, as std::nearbyint does in the
// default rounding mode.
std::int64_t python_round(double value) { return static_cast<std::int64_t>(std::nearbyint(value)); }

std::string size_text(std::int64_t height, std::int64_t width) {
  return std::to_string(height) + "x" + std::to_string(width);
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

void require_positive(std::int64_t value, const char* what) {
  if (value <= 0)
    throw Error(std::string(what) + " must be positive, got " + std::to_string(value));
}

}  // namespace

// --- RandomResizedCrop ---

RandomResizedCrop::RandomResizedCrop(std::int64_t size, std::array<double, 2> scale,
                                     std::array<double, 2> ratio)
    : size_(size), scale_(scale), ratio_(ratio) {
  require_positive(size, "RandomResizedCrop size");
  if (!(0 < scale[0] && scale[0] <= scale[1]) || !(0 < ratio[0] && ratio[0] <= ratio[1]))
    throw Error("RandomResizedCrop needs 0 < scale[0] <= scale[1] and 0 < ratio[0] <= ratio[1]");
}

CropBox RandomResizedCrop::params(std::int64_t height, std::int64_t width, Rng& rng) const {
  const double area = static_cast<double>(height * width);
  const double log_ratio[2] = {std::log(ratio_[0]), std::log(ratio_[1])};
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target_area = area * rng.uniform(scale_[0], scale_[1]);
    const double aspect_ratio = std::exp(rng.uniform(log_ratio[0], log_ratio[1]));
    const std::int64_t w = python_round(std::sqrt(target_area * aspect_ratio));
    const std::int64_t h = python_round(std::sqrt(target_area / aspect_ratio));
    if (0 < w && w <= width && 0 < h && h <= height) {
      const std::int64_t top = rng.uniform_int(0, height - h);
      const std::int64_t left = rng.uniform_int(0, width - w);
      return {top, left, h, w};
    }
  }
  // Fallback: the central crop whose aspect ratio is the nearest allowed one.
  const double in_ratio = static_cast<double>(width) / static_cast<double>(height);
  std::int64_t w = width, h = height;
  if (in_ratio < ratio_[0]) {
    h = python_round(static_cast<double>(w) / ratio_[0]);
  } else if (in_ratio > ratio_[1]) {
    w = python_round(static_cast<double>(h) * ratio_[1]);
  }
  // Python's // floors; both differences are >= 0 here.
  return {(height - h) / 2, (width - w) / 2, h, w};
}

FloatImage RandomResizedCrop::apply_box(const FloatImage& image, const CropBox& box) const {
  return resize_bilinear(crop(image, box), size_, size_);
}

void RandomResizedCrop::apply(FloatImage& image, Rng& rng) const {
  image = apply_box(image, params(image.height, image.width, rng));
}

std::string RandomResizedCrop::describe() const {
  return "RandomResizedCrop(size=" + std::to_string(size_) + ", scale=(" + number(scale_[0]) +
         ", " + number(scale_[1]) + "), ratio=(" + number(ratio_[0]) + ", " + number(ratio_[1]) +
         "), interpolation=bilinear, antialias=False)";
}

// --- RandomCrop ---

RandomCrop::RandomCrop(std::int64_t size, std::int64_t padding) : size_(size), padding_(padding) {
  require_positive(size, "RandomCrop size");
  if (padding < 0)
    throw Error("RandomCrop padding must not be negative, got " + std::to_string(padding));
}

CropBox RandomCrop::params(std::int64_t height, std::int64_t width, Rng& rng) const {
  const std::int64_t padded_height = height + 2 * padding_, padded_width = width + 2 * padding_;
  if (padded_height < size_ || padded_width < size_)
    throw Error("RandomCrop of " + size_text(size_, size_) + " is larger than the " +
                    size_text(padded_height, padded_width) + " padded image",
                "", "resize or center-crop the images to at least the crop size first");
  if (padded_height == size_ && padded_width == size_) return {-padding_, -padding_, size_, size_};
  const std::int64_t top = rng.uniform_int(0, padded_height - size_);
  const std::int64_t left = rng.uniform_int(0, padded_width - size_);
  return {top - padding_, left - padding_, size_, size_};
}

void RandomCrop::apply(FloatImage& image, Rng& rng) const {
  image = crop(image, params(image.height, image.width, rng));
}

std::string RandomCrop::describe() const {
  return "RandomCrop(size=" + std::to_string(size_) + ", padding=" + std::to_string(padding_) + ")";
}

// --- RandomHorizontalFlip ---

RandomHorizontalFlip::RandomHorizontalFlip(double p) : p_(p) {
  if (!(0.0 <= p && p <= 1.0))
    throw Error("RandomHorizontalFlip p must lie in [0, 1], got " + number(p));
}

void RandomHorizontalFlip::apply(FloatImage& image, Rng& rng) const {
  if (rng.bernoulli(p_)) flip_horizontal(image);
}

std::string RandomHorizontalFlip::describe() const {
  return "RandomHorizontalFlip(p=" + number(p_) + ")";
}

// --- Resize ---

Resize::Resize(std::int64_t size) : size_(size) { require_positive(size, "Resize size"); }

std::pair<std::int64_t, std::int64_t> Resize::output_size(std::int64_t height, std::int64_t width,
                                                          std::int64_t size) {
  const bool wide = width > height;
  const std::int64_t short_side = wide ? height : width, long_side = wide ? width : height;
  // Python: int(size * long / short), the product exact, then one rounding.
  const auto new_long = static_cast<std::int64_t>(static_cast<double>(size * long_side) /
                                                  static_cast<double>(short_side));
  return wide ? std::pair{size, new_long} : std::pair{new_long, size};
}

void Resize::apply(FloatImage& image, Rng&) const {
  const auto [height, width] = output_size(image.height, image.width, size_);
  image = resize_bilinear(image, height, width);
}

std::string Resize::describe() const {
  return "Resize(size=" + std::to_string(size_) + ", interpolation=bilinear, antialias=False)";
}

// --- CenterCrop ---

CenterCrop::CenterCrop(std::int64_t size) : size_(size) {
  require_positive(size, "CenterCrop size");
}

CropBox CenterCrop::box(std::int64_t height, std::int64_t width) const {
  // torchvision pads a small image by (size - side) // 2 before (the rest
  // after), then crops at round((padded - size) / 2) = 0: a box starting
  // (size - side) // 2 before the image. Otherwise the box starts at
  // round((side - size) / 2).
  const auto start = [&](std::int64_t side) {
    if (side < size_) return -((size_ - side) / 2);
    return python_round(static_cast<double>(side - size_) / 2.0);
  };
  return {start(height), start(width), size_, size_};
}

void CenterCrop::apply(FloatImage& image, Rng&) const {
  if (image.height == size_ && image.width == size_) return;
  image = crop(image, box(image.height, image.width));
}

std::string CenterCrop::describe() const {
  return "CenterCrop(size=" + std::to_string(size_) + ")";
}

// --- Normalize ---

Normalize::Normalize(std::vector<float> mean, std::vector<float> std)
    : mean_(std::move(mean)), std_(std::move(std)) {
  if (mean_.empty() || mean_.size() != std_.size())
    throw Error("Normalize needs as many means as standard deviations, at least one; got " +
                std::to_string(mean_.size()) + " and " + std::to_string(std_.size()));
  for (const float s : std_)
    if (!(s > 0.0f))
      throw Error("Normalize standard deviations must be positive, got " + number(s));
}

void Normalize::apply(FloatImage& image, Rng&) const {
  if (mean_.size() != 1 && static_cast<std::int64_t>(mean_.size()) != image.channels)
    throw Error("Normalize has " + std::to_string(mean_.size()) + " channel means, the image has " +
                    std::to_string(image.channels) + " channels",
                "", "put GrayToRgb before Normalize, or give one mean per channel");
  const std::int64_t pixels = image.height * image.width;
  for (std::int64_t c = 0; c < image.channels; ++c) {
    const std::size_t k = mean_.size() == 1 ? 0 : static_cast<std::size_t>(c);
    const float mean = mean_[k], std = std_[k];
    float* plane = image.plane(c);
    for (std::int64_t p = 0; p < pixels; ++p) plane[p] = (plane[p] - mean) / std;
  }
}

std::string Normalize::describe() const {
  std::string text = "Normalize(mean=[";
  for (std::size_t i = 0; i < mean_.size(); ++i) text += (i ? ", " : "") + number(mean_[i]);
  text += "], std=[";
  for (std::size_t i = 0; i < std_.size(); ++i) text += (i ? ", " : "") + number(std_[i]);
  return text + "])";
}

// --- GrayToRgb ---

void GrayToRgb::apply(FloatImage& image, Rng&) const {
  if (image.channels == 3) return;
  if (image.channels != 1)
    throw Error("GrayToRgb takes 1 or 3 channels, the image has " + std::to_string(image.channels));
  const std::size_t plane = image.data.size();
  image.data.resize(3 * plane);
  std::copy(image.data.begin(), image.data.begin() + static_cast<std::ptrdiff_t>(plane),
            image.data.begin() + static_cast<std::ptrdiff_t>(plane));
  std::copy(image.data.begin(), image.data.begin() + static_cast<std::ptrdiff_t>(plane),
            image.data.begin() + static_cast<std::ptrdiff_t>(2 * plane));
  image.channels = 3;
}

// --- TransformPipeline ---

TransformPipeline& TransformPipeline::add(std::shared_ptr<const Transform> transform) {
  if (!transform) throw Error("TransformPipeline::add: no transform given");
  transforms_.push_back(std::move(transform));
  return *this;
}

FloatImage TransformPipeline::apply(const Sample& sample, Rng& rng) const {
  FloatImage image = to_float_image(sample);
  for (const auto& transform : transforms_) transform->apply(image, rng);
  return image;
}

std::string TransformPipeline::describe() const {
  std::string text = "Compose(ToTensor()";
  for (const auto& transform : transforms_) text += ", " + transform->describe();
  return text + ")";
}

}  // namespace parity::trainer
