// Joining the ranks of a data-parallel run (rank_join.hpp).
#include "rank_join.hpp"

#include <iomanip>

#include "parity/profiler/allreduce_split.hpp"
#include "parity/trainer/dist/allreduce_calibration.hpp"
#include "parity/trainer/dist/data_parallel.hpp"
#include "parity/trainer/dist/device_gradient_reducer.hpp"
#include "parity/trainer/dist/gradient_reducer.hpp"
#include "parity/trainer/dist/nccl_collectives.hpp"

namespace parity::trainer {
namespace {

// The tuner needs the sweep whatever the capture window.
void calibrate(const RankLink& link, Communicator& communicator, const ModelState& state,
               profiler::Recorder& recorder, CaptureWindow& window, std::ostream& log) {
  const bool window_closed = !window.is_open();
  if (window_closed) window.open();
  const std::uint64_t bytes = gradient_bytes(state.parameters);
  const CalibrationSweep sweep =
      link.device_collectives
          ? calibrate_device_allreduce(*link.device_collectives, recorder, bytes)
          : calibrate_allreduce(communicator, recorder, bytes);
  if (window_closed) window.close();
  log << "AllReduce calibration for the tuner: " << sweep.messages << " messages in " << std::fixed
      << std::setprecision(2) << sweep.seconds << " s" << std::defaultfloat << std::endl;
}

}  // namespace

RankLink join_ranks(const TrainConfig& config, Communicator& communicator, Backend& backend,
                    const ModelState& state, int device, profiler::Recorder* recorder,
                    CaptureWindow& window, std::ostream& log) {
  broadcast_state(communicator, backend, state);
  const std::vector<Parameter>& parameters = state.parameters;
  std::vector<profiler::GradientBucket> buckets =
      gradient_buckets(config.allreduce_split, parameters);
  std::string library = communicator.describe();
  RankLink link;
  if (config.device_target == DeviceTarget::kGpu) {
    link.device_collectives = make_nccl_collectives(communicator, device, recorder != nullptr);
    link.reducer = std::make_unique<DeviceGradientReducer>(
        *link.device_collectives, backend, parameters, std::move(buckets), recorder);
    library = link.device_collectives->describe() + " (bootstrapped over " + library + ")";
  } else {
    link.reducer = std::make_unique<GradientReducer>(communicator, backend, parameters,
                                                     std::move(buckets), recorder);
  }
  log << "data parallel: " << library << ", " << link.reducer->buckets().size()
      << " gradient buckets (" << profiler::end_index_text(link.reducer->buckets()) << ")"
      << std::endl;
  if (recorder) calibrate(link, communicator, state, *recorder, window, log);
  return link;
}

}  // namespace parity::trainer
