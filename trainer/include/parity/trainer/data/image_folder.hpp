// ImageFolder: a Dataset of JPEG files in class folders, the ImageNet layout
// that torchvision.datasets.ImageFolder reads: root/<class>/**/<image>.JPEG.
// Classes are the subdirectories of root in sorted (byte) order and a class's
// label is its position; files are listed in torchvision's order (folders
// walked recursively, sorted by path, files sorted by name within each), so
// sample i is torchvision's samples[i]. Files ending in .jpg or .jpeg (any
// case) are samples; other files are ignored, except images of formats we do
// not decode (.png .ppm .bmp .pgm .tif .tiff .webp), which are an error:
// torchvision would train on them and silently leaving them out would make
// the two datasets differ. Images are decoded on load (see jpeg.hpp) to RGB.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "parity/trainer/data/dataset.hpp"

namespace parity::trainer {

class ImageFolder : public Dataset {
 public:
  // Lists the folder; a missing root, no class folders, a class without
  // images or an unsupported image format is a parity::Error.
  explicit ImageFolder(const std::filesystem::path& root);

  std::int64_t size() const override { return static_cast<std::int64_t>(files_.size()); }
  std::int64_t class_count() const override { return static_cast<std::int64_t>(classes_.size()); }
  Sample load(std::int64_t index) const override;
  std::string describe(std::int64_t index) const override;

  const std::filesystem::path& root() const { return root_; }
  const std::vector<std::string>& classes() const { return classes_; }
  const std::filesystem::path& path(std::int64_t index) const;
  std::int32_t label(std::int64_t index) const;

 private:
  std::filesystem::path root_;
  std::vector<std::string> classes_;
  std::vector<std::filesystem::path> files_;
  std::vector<std::int32_t> labels_;
};

}  // namespace parity::trainer
