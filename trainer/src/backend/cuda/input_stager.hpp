// The host-to-device half of the input pipeline. A batch is copied from the
// loader's memory into one of two pinned staging buffers, then by DMA on a
// copy stream of its own into a device buffer, while the compute stream is
// still busy with the previous step's backward and update (the backend
// queues those without waiting). The compute stream waits for that copy (an
// event) only where it transposes the batch into NHWC, so a trace shows the
// host-to-device copy on its own stream and, when the data came late, the
// transpose kernel starting only after the copy ends. Two slots: batch k+1
// is staged while batch k's buffers may still be in use.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <span>

#include "cuda_context.hpp"
#include "device_buffer.hpp"
#include "pinned_buffer.hpp"

namespace parity::trainer::cuda {

class InputStager {
 public:
  explicit InputStager(Context& context);
  ~InputStager();
  InputStager(const InputStager&) = delete;
  InputStager& operator=(const InputStager&) = delete;

  // Queues the upload of `values` (NCHW floats of `dims`) into `target`, an
  // NHWC tensor of the same dims; `values` may be freed when this returns.
  void upload(std::span<const float> values, const Dims& dims, float* target);

 private:
  struct Slot {
    PinnedBuffer host;
    DeviceBuffer device;
    std::size_t bytes = 0;
    cudaEvent_t copied = nullptr;    // on the copy stream: the DMA into `device` is done
    cudaEvent_t consumed = nullptr;  // on the compute stream: the transpose read `device`
    bool in_use = false;
  };

  Context& context_;
  cudaStream_t copy_stream_ = nullptr;
  std::array<Slot, 2> slots_;
  std::size_t next_ = 0;
};

}  // namespace parity::trainer::cuda
