// DeviceCollectives: collectives on GPU memory, for data-parallel GPU ranks.
// They run on a communication stream of their own, each queued to start once
// the compute stream has passed a marked point, so that a bucket's AllReduce
// overlaps the rest of backward on the device while the host goes on issuing
// work. NCCL implements it (nccl_collectives.hpp); DeviceGradientReducer
// drives it. One thread calls it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace parity::trainer {

// When a step's marks were passed and its collectives ran, on the device,
// mapped onto CLOCK_MONOTONIC nanoseconds (the trace's clock).
struct DeviceStepTimes {
  std::vector<std::int64_t> marks_ns;  // in mark order
  struct Span {
    std::int64_t start_ns = 0, end_ns = 0;
  };
  std::vector<Span> collectives;  // in queue order
};

class DeviceCollectives {
 public:
  virtual ~DeviceCollectives() = default;
  virtual std::string describe() const = 0;  // "NCCL 2.28.9, 2 ranks, GPU 0"

  // Marks the compute stream at its end now: everything issued to it so far.
  // Returns the mark's number in this step (0, 1, ...).
  virtual std::uint32_t mark_compute() = 0;
  // Queues the mean over the ranks of `values` (device memory), in place, to
  // start once the compute stream has passed mark `after`. Returns at once.
  virtual void queue_allreduce_mean(std::span<float> values, std::uint32_t after) = 0;
  // Waits (host) until the compute stream has done everything issued to it.
  virtual void wait_compute() = 0;
  // Waits (host) until every queued collective is done; compute work issued
  // from now on waits for them too. Throws parity::Error when one failed.
  virtual void wait_collectives() = 0;
  // After wait_collectives: this step's times (empty unless timing was asked
  // for), then a new step with no marks.
  virtual DeviceStepTimes end_step() = 0;

  // `count` floats of device memory for calibration messages, kept until the
  // next call.
  virtual std::span<float> scratch(std::size_t count) = 0;
};

}  // namespace parity::trainer
