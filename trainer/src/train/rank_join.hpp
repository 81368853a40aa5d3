// Joining the ranks of a data-parallel run: rank 0's weights to every rank,
// the gradient buckets (config allreduce_split), the reducer that averages
// them (NCCL between GPUs, the communicator's library between CPUs) and,
// when tracing, the AllReduce calibration sweep the tuner needs.
#pragma once

#include <memory>
#include <ostream>

#include "capture_window.hpp"
#include "parity/trainer/dist/bucket_schedule.hpp"
#include "parity/trainer/dist/communicator.hpp"
#include "parity/trainer/dist/device_collectives.hpp"
#include "parity/trainer/nn/module.hpp"
#include "parity/trainer/train/training_run.hpp"

namespace parity::trainer {

struct RankLink {
  std::unique_ptr<DeviceCollectives> device_collectives;  // GPU ranks'; outlives the reducer
  std::unique_ptr<StepReducer> reducer;
};

// Collective: every rank calls it. `device` is a GPU rank's GPU; `window`
// is opened for the calibration when it is closed. Logs the library and
// buckets (and the calibration) to `log`.
RankLink join_ranks(const TrainConfig& config, Communicator& communicator, Backend& backend,
                    const ModelState& state, int device, profiler::Recorder* recorder,
                    CaptureWindow& window, std::ostream& log);

}  // namespace parity::trainer
