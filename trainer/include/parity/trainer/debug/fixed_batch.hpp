// FixedBatch: one input batch from .npy files (images float32 [N, 3, H, W],
// labels integers [N]) fed at every step instead of the data loader, so that
// our trainer and another framework see exactly the same inputs
// (`parity-train train --input-batch IMAGES.npy --input-labels LABELS.npy`).
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "parity/trainer/data/loader.hpp"

namespace parity::trainer {

// Throws parity::Error naming the file for a wrong dtype or shape, a count
// mismatch between images and labels, or a label outside [0, classes).
Batch read_fixed_batch(const std::filesystem::path& images, const std::filesystem::path& labels,
                       std::int64_t classes);

}  // namespace parity::trainer
