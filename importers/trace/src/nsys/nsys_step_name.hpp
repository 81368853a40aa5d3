// Which NVTX ranges are training steps. Nsight Systems has no notion of a
// step; training scripts mark one with an NVTX range, and these names are
// taken for steps (case aside): a word "ProfilerStep", "step", "train_step",
// "training_step", "iteration" or "iter", then any of ' ', '#', '_', ':',
// '=', then the step number and nothing after it: "ProfilerStep#3",
// "step 3", "Step_3", "iteration 12", "iter:4", "train_step 5". Not "step",
// "step 3 forward" or "forward step".
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace parity::importers::trace {

std::optional<std::int64_t> nvtx_step_number(std::string_view name);

}  // namespace parity::importers::trace
