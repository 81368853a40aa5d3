// The checks of a training request that come before anything is written (a
// trace, a checkpoint folder): the optimizer, what data parallel cannot do,
// options that do not go together, the device, and the fixed batch of
// --input-batch, which sets the run's batch and image size.
#pragma once

#include <optional>

#include "parity/trainer/data/loader.hpp"
#include "parity/trainer/train/training_run.hpp"

namespace parity::trainer {

struct CheckedRequest {
  TrainConfig config;                // a fixed batch's batch and image size in place
  std::optional<Batch> fixed_batch;  // --input-batch: every step's batch
};

// Throws parity::Error with a hint for a request that cannot run.
CheckedRequest check_request(const TrainConfig& config, const TrainOptions& options,
                             int world_size);

}  // namespace parity::trainer
