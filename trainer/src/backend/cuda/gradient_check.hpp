// The loss scaler's overflow check on the GPU: one launch counts the Inf and
// NaN values of every gradient, and one 8-byte copy brings the count back.
// The table of gradients is rebuilt only when the parameters change.
#pragma once

#include <span>
#include <vector>

#include "cuda_context.hpp"
#include "device_buffer.hpp"
#include "kernels.hpp"
#include "pinned_buffer.hpp"

namespace parity::trainer::cuda {

class GradientCheck {
 public:
  // The number of non-finite values in the gradients of `params`; waits for
  // the compute stream.
  unsigned long long count_non_finite(Context& context, std::span<ParamTensors* const> params);

 private:
  bool matches(std::span<ParamTensors* const> params) const;
  void rebuild(Context& context, std::span<ParamTensors* const> params);

  std::vector<kernels::CheckedTensor> tensors_;
  std::vector<kernels::TensorChunk> chunks_;
  DeviceBuffer device_tensors_, device_chunks_, device_count_;
  PinnedBuffer host_count_;
};

}  // namespace parity::trainer::cuda
