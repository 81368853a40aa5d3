// The backend a config's device_target asks for: oneDNN on the CPU, or the
// CUDA backend in a build that has one, and the refusal of a GPU run that
// cannot have it (said before anything is written).
#pragma once

#include <memory>

#include "parity/trainer/backend/backend.hpp"
#include "parity/trainer/config/train_config.hpp"

namespace parity::trainer {

// Throws parity::Error with a hint when device_target is GPU and this build
// or machine has none.
void check_device_target(const TrainConfig& config);

// `device`: the GPU of a GPU run (a data-parallel rank's local rank).
std::unique_ptr<Backend> make_backend(const TrainConfig& config, int device = 0);

}  // namespace parity::trainer
