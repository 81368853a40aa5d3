#include "parity/trainer/data/in_memory_dataset.hpp"

#include "parity/core/error.hpp"

namespace parity::trainer {

InMemoryDataset::InMemoryDataset(std::shared_ptr<const ImageSet> images, std::string name)
    : images_(std::move(images)), name_(std::move(name)) {
  if (!images_) throw Error("no image set given", name_);
  const auto expected = static_cast<std::size_t>(images_->count * images_->image_bytes());
  if (images_->pixels.size() != expected ||
      images_->labels.size() != static_cast<std::size_t>(images_->count))
    throw Error("image set is inconsistent: " + std::to_string(images_->pixels.size()) +
                    " pixel bytes and " + std::to_string(images_->labels.size()) + " labels for " +
                    std::to_string(images_->count) + " images",
                name_);
}

Sample InMemoryDataset::load(std::int64_t index) const {
  if (index < 0 || index >= images_->count)
    throw Error("sample index " + std::to_string(index) + " is out of range [0, " +
                    std::to_string(images_->count) + ")",
                name_);
  Sample sample;
  sample.height = images_->height;
  sample.width = images_->width;
  sample.channels = images_->channels;
  sample.label = images_->labels[static_cast<std::size_t>(index)];
  const std::uint8_t* first = images_->image(index);
  sample.pixels.assign(first, first + images_->image_bytes());
  return sample;
}

std::string InMemoryDataset::describe(std::int64_t index) const {
  return name_ + " image " + std::to_string(index);
}

}  // namespace parity::trainer
