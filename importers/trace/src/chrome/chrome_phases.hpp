// Forward and backward phases for a PyTorch profiler trace, which marks only
// the DataLoader's batches and the optimizer: within each step
// (ProfilerStep#N), backward is the span of the autograd engine's work, and
// forward the step thread's operators before it, from the first one after
// the step's data wait up to the backward or the next marked part
// (Optimizer.zero_grad# between forward and backward).
#pragma once

#include <cstddef>
#include <string_view>

#include "trace_assembly.hpp"

namespace parity::importers::trace {

// An autograd node run in backward ("AddmmBackward0", "MeanBackward1"), or the
// engine's range around one ("autograd::engine::evaluate_function: ...").
bool is_backward_op(std::string_view name);

// Adds "forward" and "backward" phase ranges (category kPhase, on the step's
// track) to every step where the autograd engine ran; returns how many steps
// got them.
std::size_t add_training_phases(TraceAssembly& assembly);

}  // namespace parity::importers::trace
