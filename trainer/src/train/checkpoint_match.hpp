// Whether a checkpoint belongs to this run: the network it holds (for
// resuming and evaluating) and the random state it was trained with (for
// resuming), said plainly rather than as the first tensor that does not fit.
#pragma once

#include <string>

#include "parity/trainer/checkpoint/training_checkpoint.hpp"
#include "parity/trainer/config/train_config.hpp"

namespace parity::trainer {

// Our randomness is keyed by (seed, epoch, sample) and the step counters, so
// the seed is the whole random state a resumed run needs.
std::string rng_state(const TrainConfig& config);

// Throws parity::Error unless `saved` holds this config's network (net_name,
// class_num, stem); `where` names the checkpoint.
void check_same_network(const TrainConfig& config, const TrainingCheckpoint& saved,
                        const std::string& where);

// check_same_network, and the same random state.
void check_resumable(const TrainConfig& config, const TrainingCheckpoint& saved,
                     const std::string& where);

}  // namespace parity::trainer
