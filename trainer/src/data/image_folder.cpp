#include "parity/trainer/data/image_folder.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <span>
#include <string_view>

#include "parity/core/error.hpp"
#include "parity/trainer/data/jpeg.hpp"

namespace parity::trainer {
namespace {

namespace fs = std::filesystem;

std::string lower(std::string text) {
  for (auto& ch : text) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return text;
}

bool ends_with_any(const std::string& name, std::span<const std::string_view> endings) {
  return std::any_of(endings.begin(), endings.end(),
                     [&](std::string_view ending) { return name.ends_with(ending); });
}

constexpr std::array<std::string_view, 2> kJpegEndings = {".jpg", ".jpeg"};
// The rest of torchvision's IMG_EXTENSIONS.
constexpr std::array<std::string_view, 7> kOtherImageEndings = {".png", ".ppm",  ".bmp", ".pgm",
                                                                ".tif", ".tiff", ".webp"};

}  // namespace

ImageFolder::ImageFolder(const fs::path& root) : root_(root) {
  std::error_code ec;
  if (!fs::is_directory(root_, ec))
    throw Error("image folder not found", root_.string(),
                "data_path must hold one folder per class (ImageNet layout)");
  for (const auto& entry : fs::directory_iterator(root_)) {
    if (entry.is_directory()) classes_.push_back(entry.path().filename().string());
  }
  std::sort(classes_.begin(), classes_.end());
  if (classes_.empty())
    throw Error("no class folders in the image folder", root_.string(),
                "data_path must hold one folder per class (ImageNet layout)");

  for (std::size_t label = 0; label < classes_.size(); ++label) {
    const fs::path class_dir = root_ / classes_[label];
    // Folder path -> file names in it; std::map orders the folders by path
    // bytes as Python's sorted(os.walk(...)) orders them by code point.
    std::map<std::string, std::vector<std::string>> folders;
    folders[class_dir.string()];
    for (const auto& entry : fs::recursive_directory_iterator(
             class_dir, fs::directory_options::follow_directory_symlink)) {
      if (entry.is_directory()) {
        folders[entry.path().string()];
        continue;
      }
      const std::string name = entry.path().filename().string();
      const std::string lowered = lower(name);
      if (ends_with_any(lowered, kJpegEndings)) {
        folders[entry.path().parent_path().string()].push_back(name);
      } else if (ends_with_any(lowered, kOtherImageEndings)) {
        throw Error("only JPEG images are supported, found " + name, entry.path().string(),
                    "convert the image to JPEG, or move it out of the dataset");
      }
    }
    std::size_t found = 0;
    for (auto& [folder, names] : folders) {
      std::sort(names.begin(), names.end());
      for (const auto& name : names) {
        files_.push_back(fs::path(folder) / name);
        labels_.push_back(static_cast<std::int32_t>(label));
      }
      found += names.size();
    }
    if (found == 0)
      throw Error("class folder " + classes_[label] + " holds no JPEG image (.jpg, .jpeg)",
                  class_dir.string(), "remove the empty folder or add its images");
  }
}

const fs::path& ImageFolder::path(std::int64_t index) const {
  if (index < 0 || index >= size())
    throw Error("sample index " + std::to_string(index) + " is out of range [0, " +
                    std::to_string(size()) + ")",
                root_.string());
  return files_[static_cast<std::size_t>(index)];
}

std::int32_t ImageFolder::label(std::int64_t index) const {
  path(index);  // range check
  return labels_[static_cast<std::size_t>(index)];
}

Sample ImageFolder::load(std::int64_t index) const {
  Sample sample = read_jpeg(path(index));
  sample.label = labels_[static_cast<std::size_t>(index)];
  return sample;
}

std::string ImageFolder::describe(std::int64_t index) const { return path(index).string(); }

}  // namespace parity::trainer
