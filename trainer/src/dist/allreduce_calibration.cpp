#include "parity/trainer/dist/allreduce_calibration.hpp"

#include <chrono>
#include <functional>
#include <span>

#include "parity/core/error.hpp"
#include "parity/profiler/allreduce_split.hpp"

namespace parity::trainer {

std::vector<std::uint64_t> calibration_sizes(std::uint64_t gradient_bytes) {
  constexpr std::uint64_t kSmallest = 256;  // 64 floats: the smallest BN parameter of a ResNet
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t bytes = kSmallest; bytes < gradient_bytes; bytes *= 2) sizes.push_back(bytes);
  if (gradient_bytes >= 4) sizes.push_back(gradient_bytes / 4 * 4);  // whole floats
  return sizes;
}

namespace {

// One calibration AllReduce's start and end, on the clock `base` says.
struct TimedReduce {
  std::uint64_t start = 0, end = 0;
  profiler::TimeBase base = profiler::TimeBase::kTicks;
};

// The sweep over `messages` (room for the largest size), each reduced and
// timed by `reduce`.
CalibrationSweep sweep(profiler::Recorder& recorder, const std::vector<std::uint64_t>& sizes,
                       std::span<float> messages,
                       const std::function<TimedReduce(std::span<float>)>& reduce) {
  const profiler::NameId lane = profiler::intern(profiler::kCalibrationLane);
  const auto began = std::chrono::steady_clock::now();
  CalibrationSweep result;
  for (std::size_t index = 0; index < sizes.size(); ++index)
    for (int repeat = 0; repeat < kCalibrationRepeats; ++repeat) {
      const std::span<float> message = messages.first(static_cast<std::size_t>(sizes[index] / 4));
      const TimedReduce timed = reduce(message);
      profiler::CollectiveEvent event{lane,
                                      profiler::CollectiveOp::kAllReduce,
                                      timed.start,
                                      timed.end,
                                      message.size_bytes(),
                                      DType::kFloat32,
                                      static_cast<std::uint32_t>(index),
                                      0,
                                      0};
      event.time_base = timed.base;
      recorder.collective(event);
      ++result.messages;
    }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return result;
}

}  // namespace

CalibrationSweep calibrate_allreduce(Communicator& communicator, profiler::Recorder& recorder,
                                     std::uint64_t gradient_bytes) {
  const std::vector<std::uint64_t> sizes = calibration_sizes(gradient_bytes);
  if (sizes.empty()) return {};
  std::vector<float> scratch(static_cast<std::size_t>(sizes.back() / 4));
  return sweep(recorder, sizes, scratch, [&](std::span<float> message) {
    const profiler::Ticks start = profiler::read_ticks();
    communicator.allreduce_mean(message);
    return TimedReduce{start, profiler::read_ticks()};
  });
}

CalibrationSweep calibrate_device_allreduce(DeviceCollectives& collectives,
                                            profiler::Recorder& recorder,
                                            std::uint64_t gradient_bytes) {
  const std::vector<std::uint64_t> sizes = calibration_sizes(gradient_bytes);
  if (sizes.empty()) return {};
  const std::span<float> scratch = collectives.scratch(static_cast<std::size_t>(sizes.back() / 4));
  return sweep(recorder, sizes, scratch, [&](std::span<float> message) {
    collectives.queue_allreduce_mean(message, collectives.mark_compute());
    collectives.wait_collectives();
    const DeviceStepTimes times = collectives.end_step();
    if (times.collectives.empty())
      throw Error("the device collectives keep no times, and the calibration needs them",
                  "allreduce calibration", "make the collectives with timing on");
    const DeviceStepTimes::Span span = times.collectives.front();
    return TimedReduce{static_cast<std::uint64_t>(span.start_ns),
                       static_cast<std::uint64_t>(span.end_ns), profiler::TimeBase::kMonotonicNs};
  });
}

}  // namespace parity::trainer
