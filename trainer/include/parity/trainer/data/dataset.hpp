// Dataset: what the loader reads samples from. A sample is one decoded image
// (8-bit pixels, rows of interleaved channels: HWC) and its label. The
// implementations are InMemoryDataset (Fashion-MNIST, CIFAR-10), ImageFolder
// (JPEG files in class folders, ImageNet layout) and SyntheticDataset.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace parity::trainer {

struct Sample {
  std::vector<std::uint8_t> pixels;  // height x width x channels (HWC)
  std::int64_t height = 0, width = 0, channels = 0;
  std::int32_t label = 0;
};

class Dataset {
 public:
  virtual ~Dataset() = default;

  virtual std::int64_t size() const = 0;
  // Labels lie in [0, class_count()).
  virtual std::int64_t class_count() const = 0;
  // Decodes sample `index` (0 <= index < size()). Called from several worker
  // threads at once. A sample that cannot be read is a parity::Error whose
  // where() is describe(index).
  virtual Sample load(std::int64_t index) const = 0;
  // Where sample `index` comes from, for messages: a file path, or the
  // dataset's name and the index.
  virtual std::string describe(std::int64_t index) const = 0;
};

}  // namespace parity::trainer
