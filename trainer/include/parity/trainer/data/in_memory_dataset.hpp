// InMemoryDataset: a Dataset over an ImageSet held whole in memory
// (Fashion-MNIST, CIFAR-10). Loading a sample copies its pixels.
#pragma once

#include <memory>
#include <string>

#include "parity/trainer/data/dataset.hpp"
#include "parity/trainer/data/image_set.hpp"

namespace parity::trainer {

class InMemoryDataset : public Dataset {
 public:
  // `name` appears in messages ("fashion_mnist train image 17").
  InMemoryDataset(std::shared_ptr<const ImageSet> images, std::string name);

  std::int64_t size() const override { return images_->count; }
  std::int64_t class_count() const override { return images_->class_count; }
  Sample load(std::int64_t index) const override;
  std::string describe(std::int64_t index) const override;

  const ImageSet& images() const { return *images_; }

 private:
  std::shared_ptr<const ImageSet> images_;
  std::string name_;
};

}  // namespace parity::trainer
