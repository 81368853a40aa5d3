#include "parity/trainer/data/synthetic_dataset.hpp"

#include <string>

#include "parity/core/error.hpp"
#include "parity/trainer/data/random.hpp"

namespace parity::trainer {

SyntheticDataset::SyntheticDataset(SyntheticOptions options) : options_(options) {
  if (options_.count < 0 || options_.height <= 0 || options_.width <= 0 || options_.channels <= 0 ||
      options_.class_count <= 0)
    throw Error(
        "synthetic dataset needs count >= 0 and positive height, width, channels and "
        "class count; got count " +
            std::to_string(options_.count) + ", " + std::to_string(options_.height) + "x" +
            std::to_string(options_.width) + "x" + std::to_string(options_.channels) + ", " +
            std::to_string(options_.class_count) + " classes",
        "synthetic dataset", "check synthetic_size, train_image_size and class_num");
}

Sample SyntheticDataset::load(std::int64_t index) const {
  if (index < 0 || index >= options_.count)
    throw Error("sample index " + std::to_string(index) + " is out of range [0, " +
                    std::to_string(options_.count) + ")",
                "synthetic dataset");
  Rng rng = Rng::stream(RngPurpose::kSynthetic, static_cast<std::uint64_t>(options_.seed),
                        static_cast<std::uint64_t>(index));
  Sample sample;
  sample.height = options_.height;
  sample.width = options_.width;
  sample.channels = options_.channels;
  sample.label = static_cast<std::int32_t>(rng.uniform_int(0, options_.class_count - 1));
  sample.pixels.resize(
      static_cast<std::size_t>(options_.height * options_.width * options_.channels));
  // Eight pixels per draw: the low byte first.
  std::size_t i = 0;
  while (i < sample.pixels.size()) {
    std::uint64_t bits = rng.next_u64();
    for (int b = 0; b < 8 && i < sample.pixels.size(); ++b, ++i, bits >>= 8)
      sample.pixels[i] = static_cast<std::uint8_t>(bits & 0xff);
  }
  return sample;
}

std::string SyntheticDataset::describe(std::int64_t index) const {
  return "synthetic image " + std::to_string(index);
}

}  // namespace parity::trainer
