// One contiguous buffer for the gradients of many parameters (the CPU
// backend's contiguous_gradients): a data-parallel bucket of consecutive
// parameters is then a single in-place AllReduce, with no copy in or out.
// Each gradient starts 64-byte aligned, as oneDNN's own buffers do; the gaps
// between them are zero and nothing writes them.
#pragma once

#include <span>
#include <vector>

#include "parity/trainer/backend/backend.hpp"

namespace parity::trainer::cpu {

std::vector<std::span<float>> move_gradients_together(std::span<ParamTensors* const> params);

}  // namespace parity::trainer::cpu
