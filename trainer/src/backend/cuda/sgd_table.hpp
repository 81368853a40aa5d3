// The device-side table that lets one kernel launch update every parameter:
// a row per tensor (pointers, size, weight decay) and a row per chunk of
// kChunkElements elements. Rebuilt only when the parameters or their weight
// decays change, which in training is never after the first step.
#pragma once

#include <span>
#include <vector>

#include "cuda_context.hpp"
#include "device_buffer.hpp"
#include "kernels.hpp"

namespace parity::trainer::cuda {

class SgdTable {
 public:
  // Runs one update of `params` (steps[i] for params[i]; they may differ
  // only in weight decay).
  void update(Context& context, std::span<ParamTensors* const> params,
              std::span<const SgdStep> steps);

 private:
  bool matches(std::span<ParamTensors* const> params, std::span<const SgdStep> steps) const;
  void rebuild(Context& context, std::span<ParamTensors* const> params,
               std::span<const SgdStep> steps);

  std::vector<kernels::SgdTensor> tensors_;
  std::vector<kernels::TensorChunk> chunks_;
  DeviceBuffer device_tensors_, device_chunks_;
};

}  // namespace parity::trainer::cuda
