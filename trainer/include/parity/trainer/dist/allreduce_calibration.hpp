// The AllReduce calibration sweep of a traced data-parallel run: before the
// first step, with nothing else running, every rank reduces messages of 256 B,
// 512 B, 1 KiB, ... (x2: costs jump where messages outgrow a cache) below the
// model's gradient bytes and of the gradient bytes themselves, three times
// each, and traces them on the
// `allreduce_calibration` lane (profiler::kCalibrationLane). `parity tune-allreduce`
// reads them as the idle cost of every message size a bucket can have; the
// buckets of a training step measure only their own sizes, and mostly while
// backward competes with them for the cores.
#pragma once

#include <cstdint>
#include <vector>

#include "parity/profiler/recorder.hpp"
#include "parity/trainer/dist/communicator.hpp"
#include "parity/trainer/dist/device_collectives.hpp"

namespace parity::trainer {

inline constexpr int kCalibrationRepeats = 3;

// The sizes swept for a model with this many bytes of gradients, ascending.
std::vector<std::uint64_t> calibration_sizes(std::uint64_t gradient_bytes);

struct CalibrationSweep {
  int messages = 0;
  double seconds = 0;
};

// Collective: every rank calls it with the same `gradient_bytes`.
CalibrationSweep calibrate_allreduce(Communicator& communicator, profiler::Recorder& recorder,
                                     std::uint64_t gradient_bytes);
// The same over GPU memory, for GPU ranks: device times (`collectives` timed).
CalibrationSweep calibrate_device_allreduce(DeviceCollectives& collectives,
                                            profiler::Recorder& recorder,
                                            std::uint64_t gradient_bytes);

}  // namespace parity::trainer
