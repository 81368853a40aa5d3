// The settings a dump's header records for a run of ours (docs/formats/dump.md),
// under the names samples/torch/dump_reference.py records its own, so that
// `parity compare` can say where the two runs were set up differently.
#pragma once

#include <span>
#include <string_view>

#include "parity/importers/dump/run_settings.hpp"
#include "parity/trainer/config/train_config.hpp"

namespace parity::trainer {

// `learning_rates` holds every step's; the header keeps the first few.
importers::RunSettings dump_settings(const TrainConfig& config,
                                     std::span<const double> learning_rates,
                                     std::string_view backend_description);

}  // namespace parity::trainer
