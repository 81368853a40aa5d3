#include "input_stager.hpp"

#include <cstring>

#include "cuda_check.hpp"
#include "kernels.hpp"

namespace parity::trainer::cuda {

InputStager::InputStager(Context& context) : context_(context) {
  PARITY_CUDA_CHECK(cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking));
  for (Slot& slot : slots_) {
    // Timing is not needed: events without it are cheaper to record and wait on.
    PARITY_CUDA_CHECK(cudaEventCreateWithFlags(&slot.copied, cudaEventDisableTiming));
    PARITY_CUDA_CHECK(cudaEventCreateWithFlags(&slot.consumed, cudaEventDisableTiming));
  }
}

InputStager::~InputStager() {
  // The compute stream may still read a slot; a destructor cannot report.
  (void)cudaStreamSynchronize(context_.stream);
  for (Slot& slot : slots_) {
    slot.device = DeviceBuffer();  // freed in the copy stream's order
    (void)cudaEventDestroy(slot.copied);
    (void)cudaEventDestroy(slot.consumed);
  }
  (void)cudaStreamSynchronize(copy_stream_);
  (void)cudaStreamDestroy(copy_stream_);
}

void InputStager::upload(std::span<const float> values, const Dims& dims, float* target) {
  Slot& slot = slots_[next_];
  next_ = (next_ + 1) % slots_.size();
  // Two batches ago this slot fed a transpose that the compute stream has
  // almost always finished by now (each step reads its loss back).
  if (slot.in_use) PARITY_CUDA_CHECK(cudaEventSynchronize(slot.consumed));
  if (slot.bytes < values.size_bytes()) {
    slot.host = PinnedBuffer(values.size_bytes());
    slot.device = DeviceBuffer(values.size_bytes(), copy_stream_);
    slot.bytes = values.size_bytes();
  }
  std::memcpy(slot.host.data(), values.data(), values.size_bytes());
  PARITY_CUDA_CHECK(cudaMemcpyAsync(slot.device.data(), slot.host.data(), values.size_bytes(),
                                    cudaMemcpyHostToDevice, copy_stream_));
  PARITY_CUDA_CHECK(cudaEventRecord(slot.copied, copy_stream_));
  PARITY_CUDA_CHECK(cudaStreamWaitEvent(context_.stream, slot.copied, 0));
  kernels::nchw_to_nhwc(slot.device.as<float>(), target, dims[0], dims[1], dims[2], dims[3],
                        context_.stream);
  PARITY_CUDA_CHECK(cudaEventRecord(slot.consumed, context_.stream));
  slot.in_use = true;
}

}  // namespace parity::trainer::cuda
