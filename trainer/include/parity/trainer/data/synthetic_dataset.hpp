// SyntheticDataset: random images and labels made on demand from a seed, for
// benchmarks and tests that need data of a given shape without files. Sample
// i is a function of (seed, i) alone: every pixel byte uniform in [0, 255],
// the label uniform in [0, class_count).
#pragma once

#include <cstdint>

#include "parity/trainer/data/dataset.hpp"

namespace parity::trainer {

struct SyntheticOptions {
  std::int64_t count = 4096;
  std::int64_t height = 32, width = 32, channels = 3;
  std::int64_t class_count = 10;
  std::int64_t seed = 1;
};

class SyntheticDataset : public Dataset {
 public:
  explicit SyntheticDataset(SyntheticOptions options);

  std::int64_t size() const override { return options_.count; }
  std::int64_t class_count() const override { return options_.class_count; }
  Sample load(std::int64_t index) const override;
  std::string describe(std::int64_t index) const override;

 private:
  SyntheticOptions options_;
};

}  // namespace parity::trainer
