// ImageSet: a whole labelled image dataset held in memory as 8-bit pixels,
// and the readers of the two small datasets our configs train on:
// Fashion-MNIST (IDX files, gzip or raw) and CIFAR-10 (binary batches).
// A damaged file is an error naming the file, the record and what is wrong.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

namespace parity::trainer {

struct ImageSet {
  std::int64_t count = 0;
  std::int64_t height = 0, width = 0, channels = 0;
  std::vector<std::uint8_t> pixels;  // count x height x width x channels (HWC per image)
  std::vector<std::int32_t> labels;  // count values in [0, class_count)
  std::int64_t class_count = 0;

  std::int64_t image_bytes() const { return height * width * channels; }
  const std::uint8_t* image(std::int64_t index) const {
    return pixels.data() + index * image_bytes();
  }
};

enum class Split { kTrain, kTest };

// IDX image file (magic 0x00000803) and label file (0x00000801), each gzip
// compressed or raw. `class_count` bounds the labels.
ImageSet read_idx(const std::filesystem::path& images, const std::filesystem::path& labels,
                  std::int64_t class_count);

// Fashion-MNIST as Debian's dataset-fashion-mnist installs it:
// {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz in `folder`.
ImageSet read_fashion_mnist(const std::filesystem::path& folder, Split split);

// CIFAR-10 binary version: data_batch_1..5.bin (train) or test_batch.bin
// (test) in `folder`; each record is a label byte then 3x32x32 planes.
ImageSet read_cifar10(const std::filesystem::path& folder, Split split);

}  // namespace parity::trainer
