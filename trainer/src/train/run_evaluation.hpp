// Evaluating a model during or after training: top-1, top-5 and the mean
// loss over a loader's images, and the log line that says them.
#pragma once

#include <cstdint>
#include <ostream>

#include "parity/trainer/backend/backend.hpp"
#include "parity/trainer/data/loader.hpp"
#include "parity/trainer/nn/resnet.hpp"
#include "parity/trainer/train/training_run.hpp"

namespace parity::trainer {

EvalResult evaluate_model(Backend& backend, ResNet& model, Loader& loader, std::int64_t classes);

// "epoch: 3 eval top-1: 91.20% top-5: 99.80% loss: 0.2712 (10000 images)"
void print_eval(std::ostream& log, std::int64_t epoch, const EvalResult& result);

}  // namespace parity::trainer
