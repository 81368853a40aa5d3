#include "parity/trainer/optim/loss_scaler.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "parity/core/error.hpp"

namespace parity::trainer {

LossScaler::LossScaler(const LossScaleOptions& options) : options_(options) {
  state_.scale = options.scale;
}

bool LossScaler::finish_step(bool overflow) {
  if (overflow) ++state_.overflow_steps;
  if (options_.kind == LossScaleKind::kFixed) {
    const bool skip = overflow && options_.drop_overflow_update;
    if (skip) ++state_.skipped_steps;
    return !skip;
  }
  if (overflow) {
    ++state_.skipped_steps;
    state_.scale = std::max(state_.scale / options_.factor, 1.0);
    state_.clean_steps = 0;
    return false;
  }
  if (++state_.clean_steps >= options_.window) {
    // The gradient kernels take the scale as a float: it must stay finite there.
    const double grown = state_.scale * options_.factor;
    if (grown <= double(std::numeric_limits<float>::max())) state_.scale = grown;
    state_.clean_steps = 0;
  }
  return true;
}

void LossScaler::restore(const LossScaleState& state, std::string_view where) {
  if (!(state.scale > 0) || state.clean_steps < 0 || state.overflow_steps < 0 ||
      state.skipped_steps < 0 || state.skipped_steps > state.overflow_steps)
    throw Error("the loss scale state is damaged (scale " + std::to_string(state.scale) +
                    ", clean steps " + std::to_string(state.clean_steps) + ")",
                std::string(where), "resume from another checkpoint");
  state_ = state;
  // A fixed scale is the config's, whatever the checkpoint's was.
  if (options_.kind == LossScaleKind::kFixed) state_.scale = options_.scale;
}

}  // namespace parity::trainer
