// DeviceGradientReducer: the reducer of GPU ranks. Backward issues its work
// to the compute stream and returns long before the GPU has run it, so this
// reducer never waits for a gradient on the host: when BucketSchedule
// releases a bucket, it marks the compute stream and queues the bucket's
// AllReduce behind that mark on the communication stream (DeviceCollectives)
// at once, and the device overlaps it with the rest of backward.
//
// end_backward waits for the compute stream, so that the host's backward
// phase ends when the device's does; finish_step then waits for the
// collectives, so that the allreduce_wait phase is the communication backward
// did not hide, as on CPU ranks. When tracing, every parameter's
// gradient-ready time and every bucket's AllReduce are recorded with their
// device times (the gradients live in one device buffer,
// Backend::contiguous_gradients, so a bucket is one in-place AllReduce).
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "parity/trainer/dist/bucket_schedule.hpp"
#include "parity/trainer/dist/device_collectives.hpp"

namespace parity::trainer {

class DeviceGradientReducer final : public StepReducer {
 public:
  // `parameters` in forward (registration) order, as ModelState lists them.
  DeviceGradientReducer(DeviceCollectives& collectives, Backend& backend,
                        const std::vector<Parameter>& parameters,
                        std::vector<profiler::GradientBucket> buckets,
                        profiler::Recorder* recorder);

  void gradient_ready(const Parameter& parameter) override;
  bool records_ready_times() const override { return recorder_ != nullptr; }
  void end_backward() override;
  // Throws parity::Error when a collective failed.
  void finish_step() override;
  const std::vector<profiler::GradientBucket>& buckets() const override {
    return schedule_.buckets();
  }

 private:
  void queue(const std::vector<std::uint32_t>& released, std::uint32_t mark);
  void record_step(const DeviceStepTimes& times);

  DeviceCollectives& collectives_;
  profiler::Recorder* recorder_;
  BucketSchedule schedule_;
  std::vector<std::span<float>> messages_;     // each bucket's part of the gradient buffer
  std::vector<std::uint64_t> gradient_bytes_;  // per parameter
  profiler::NameId lane_;
  // This step: (parameter, mark) of every gradient when tracing, and the
  // buckets in the order their AllReduces were queued.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ready_marks_;
  std::vector<std::uint32_t> queued_;
};

}  // namespace parity::trainer
