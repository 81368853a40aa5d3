#include "parity/trainer/dist/allreduce_calibration.hpp"

#include <chrono>
#include <span>

#include "parity/core/allreduce_split.hpp"

namespace parity::trainer {

std::vector<std::uint64_t> calibration_sizes(std::uint64_t gradient_bytes) {
  constexpr std::uint64_t kSmallest = 256;  // 64 floats: the smallest BN parameter of a ResNet
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t bytes = kSmallest; bytes < gradient_bytes; bytes *= 2) sizes.push_back(bytes);
  if (gradient_bytes >= 4) sizes.push_back(gradient_bytes / 4 * 4);  // whole floats
  return sizes;
}

CalibrationSweep calibrate_allreduce(Communicator& communicator, profiler::Recorder& recorder,
                                     std::uint64_t gradient_bytes) {
  const std::vector<std::uint64_t> sizes = calibration_sizes(gradient_bytes);
  if (sizes.empty()) return {};
  std::vector<float> scratch(static_cast<std::size_t>(sizes.back() / 4));
  const profiler::NameId lane = profiler::intern(kCalibrationLane);
  const auto began = std::chrono::steady_clock::now();
  CalibrationSweep sweep;
  for (std::size_t index = 0; index < sizes.size(); ++index)
    for (int repeat = 0; repeat < kCalibrationRepeats; ++repeat) {
      const std::span<float> message(scratch.data(), static_cast<std::size_t>(sizes[index] / 4));
      const profiler::Ticks start = profiler::read_ticks();
      communicator.allreduce_mean(message);
      recorder.collective({lane, profiler::CollectiveOp::kAllReduce, start, profiler::read_ticks(),
                           message.size_bytes(), DType::kFloat32, static_cast<std::uint32_t>(index),
                           0, 0});
      ++sweep.messages;
    }
  sweep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return sweep;
}

}  // namespace parity::trainer
