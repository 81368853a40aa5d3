// Image transforms with torchvision's semantics (torchvision 0.14's
// documented behaviour on tensors) and the pipeline that chains them. A
// pipeline turns a decoded 8-bit sample into a float CHW image: it first
// scales the pixels to [0, 1] (ToTensor), then runs its transforms in order.
// Random transforms draw only from the Rng passed in, so the same Rng state
// gives the same output; the loader gives each sample its own stream.
// The random draws are ours (torchvision draws from torch's global RNG), so
// a random transform matches torchvision for the parameters it drew: each
// exposes params() and apply_box() to show that.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "parity/trainer/data/dataset.hpp"
#include "parity/trainer/data/float_image.hpp"
#include "parity/trainer/data/random.hpp"

namespace parity::trainer {

class Transform {
 public:
  virtual ~Transform() = default;
  // Transforms `image` in place (it may be replaced by one of another size).
  // A transform that cannot apply (a crop larger than the image allows, a
  // channel count it does not take) throws parity::Error.
  virtual void apply(FloatImage& image, Rng& rng) const = 0;
  // The transform as torchvision would print it, e.g. "RandomCrop(size=32, padding=4)".
  virtual std::string describe() const = 0;
};

// Crops a random area and aspect ratio and resizes it (bilinear, no
// antialias) to size x size. Up to 10 tries draw an area fraction uniform
// in `scale` and a log-uniform aspect ratio in `ratio`, and keep the first
// box that fits; else the center crop closest to `ratio` (or the whole image).
class RandomResizedCrop : public Transform {
 public:
  explicit RandomResizedCrop(std::int64_t size, std::array<double, 2> scale = {0.08, 1.0},
                             std::array<double, 2> ratio = {3.0 / 4.0, 4.0 / 3.0});
  CropBox params(std::int64_t height, std::int64_t width, Rng& rng) const;
  FloatImage apply_box(const FloatImage& image, const CropBox& box) const;
  void apply(FloatImage& image, Rng& rng) const override;
  std::string describe() const override;

 private:
  std::int64_t size_;
  std::array<double, 2> scale_, ratio_;
};

// Pads every side by `padding` zeros, then crops a uniformly placed
// size x size box. params() gives the box in the unpadded image's
// coordinates (top and left from -padding).
class RandomCrop : public Transform {
 public:
  explicit RandomCrop(std::int64_t size, std::int64_t padding = 0);
  CropBox params(std::int64_t height, std::int64_t width, Rng& rng) const;
  FloatImage apply_box(const FloatImage& image, const CropBox& box) const {
    return crop(image, box);
  }
  void apply(FloatImage& image, Rng& rng) const override;
  std::string describe() const override;

 private:
  std::int64_t size_, padding_;
};

// Mirrors the image with probability p.
class RandomHorizontalFlip : public Transform {
 public:
  explicit RandomHorizontalFlip(double p = 0.5);
  void apply(FloatImage& image, Rng& rng) const override;
  std::string describe() const override;

 private:
  double p_;
};

// Resizes (bilinear, no antialias) so the shorter side is `size`; the longer
// side becomes int(size * long / short), truncated, as torchvision computes it.
class Resize : public Transform {
 public:
  explicit Resize(std::int64_t size);
  // (height, width) after the resize.
  static std::pair<std::int64_t, std::int64_t> output_size(std::int64_t height, std::int64_t width,
                                                           std::int64_t size);
  void apply(FloatImage& image, Rng& rng) const override;
  std::string describe() const override;

 private:
  std::int64_t size_;
};

// Crops the central size x size box; an image smaller than that is first
// padded with zeros, the odd pixel going to the right or bottom. The offset
// is round((image - size) / 2) with Python's round (half to even).
class CenterCrop : public Transform {
 public:
  explicit CenterCrop(std::int64_t size);
  CropBox box(std::int64_t height, std::int64_t width) const;
  void apply(FloatImage& image, Rng& rng) const override;
  std::string describe() const override;

 private:
  std::int64_t size_;
};

// (x - mean[c]) / std[c] in float32; one mean and std apply to every channel.
class Normalize : public Transform {
 public:
  Normalize(std::vector<float> mean, std::vector<float> std);
  void apply(FloatImage& image, Rng& rng) const override;
  std::string describe() const override;

 private:
  std::vector<float> mean_, std_;
};

// Copies a single channel into three (torchvision's Grayscale-to-RGB
// expand); three-channel images pass unchanged.
class GrayToRgb : public Transform {
 public:
  void apply(FloatImage& image, Rng& rng) const override;
  std::string describe() const override { return "GrayToRgb()"; }
};

// The transforms of a dataset, applied in order to every sample. Copies share
// the (immutable) transforms, so a pipeline can be used from many threads.
class TransformPipeline {
 public:
  TransformPipeline() = default;

  TransformPipeline& add(std::shared_ptr<const Transform> transform);
  template <typename T, typename... Args>
  TransformPipeline& add(Args&&... args) {
    return add(std::make_shared<const T>(std::forward<Args>(args)...));
  }

  // Scales the sample's pixels to [0, 1] and runs every transform.
  FloatImage apply(const Sample& sample, Rng& rng) const;
  // "Compose(ToTensor(), RandomCrop(size=32, padding=4), ...)".
  std::string describe() const;
  std::size_t size() const { return transforms_.size(); }

 private:
  std::vector<std::shared_ptr<const Transform>> transforms_;
};

}  // namespace parity::trainer
