// One `parity-train train` run from request to summary: run() is the list of
// its steps (check the request, open the trace, build backend and model,
// build the optimizer, open the data, resume, join the ranks, announce, run
// the steps, sum up). The setup steps are in training_session.cpp, the loop
// over epochs and steps in training_steps.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <vector>

#include "capture_window.hpp"
#include "parity/profiler/recorder.hpp"
#include "parity/trainer/checkpoint/checkpoint_manager.hpp"
#include "parity/trainer/data/loader.hpp"
#include "parity/trainer/debug/grad_sign_probe.hpp"
#include "parity/trainer/debug/planted_faults.hpp"
#include "parity/trainer/debug/tensor_dumper.hpp"
#include "parity/trainer/loss/softmax_cross_entropy.hpp"
#include "parity/trainer/nn/resnet.hpp"
#include "parity/trainer/nn/tensor_observer.hpp"
#include "parity/trainer/optim/sgd.hpp"
#include "parity/trainer/optim/thor.hpp"
#include "parity/trainer/train/progress_line.hpp"
#include "parity/trainer/train/training_run.hpp"
#include "rank_join.hpp"
#include "run_trace.hpp"
#include "step_loss_scaling.hpp"

namespace parity::trainer {

class TrainingSession {
 public:
  // Only rank 0 writes to `rank_log`; the session keeps references to all three.
  TrainingSession(const TrainConfig& config, const TrainOptions& options, std::ostream& rank_log);
  TrainingSession(const TrainingSession&) = delete;
  TrainingSession& operator=(const TrainingSession&) = delete;

  TrainSummary run();

 private:
  using Clock = std::chrono::steady_clock;

  // Where one epoch of the loop stands.
  struct Epoch {
    std::int64_t index = 0;  // from 0
    std::int64_t first = 0;  // its first step (a resumed run starts inside an epoch)
    std::int64_t step = 0;   // the step in the epoch being run
    double loss = 0.0;       // the last step's
    Clock::time_point start;
  };

  // The steps of run(), in order (training_session.cpp).
  void check_request();
  void open_trace();
  void build_backend();
  void build_model();
  void build_optimizer();
  void open_data();
  void build_thor();
  void resume();
  void join_ranks();
  void announce();
  TrainSummary sum_up();

  void add_observers();
  void save_checkpoint(const Epoch& epoch);

  // The loop (training_steps.cpp).
  void run_steps();
  void run_epoch();
  void run_step(Epoch& epoch);
  void follow_trace_steps();
  Batch next_batch();
  BackendLoss forward(const Batch& batch);
  void backward(const BackendLoss& result);
  bool update(double lr);
  void record_step(Epoch& epoch, const BackendLoss& result, bool applied, double lr);
  void report_step(const Epoch& epoch, double lr);
  void stop_when_out_of_time();
  void end_epoch(const Epoch& epoch);

  const TrainOptions& options_;
  const DebugOptions& debug_;
  Communicator* const communicator_;
  const int rank_, world_size_;
  std::ostream& log_;  // rank 0's `rank_log`; nothing on the other ranks
  TrainConfig config_;
  std::optional<Batch> fixed_batch_;
  // Declared before the backend: the recorder outlives it.
  std::unique_ptr<profiler::Recorder> recorder_;
  std::optional<PhaseNames> names_;  // interned after the recorder opens, as always
  int device_ = 0;                   // a GPU run's GPU
  std::unique_ptr<Backend> backend_;
  std::optional<CaptureWindow> window_;
  ObserverChain observers_;
  Tracing tracing_;
  LossOptions loss_options_;
  std::optional<ResNet> model_;
  NanPlanter* nan_planter_ = nullptr;  // in observers_
  TensorDumper* dumper_ = nullptr;     // in observers_
  GradSignProbe* probe_ = nullptr;     // in observers_
  std::optional<Sgd> optimizer_;
  std::unique_ptr<ThorPreconditioner> thor_;  // optimizer Thor: preconditions before optimizer_
  std::optional<StepLossScaling> scaling_;
  std::vector<ParamTensors*> parameter_tensors_;
  std::unique_ptr<Loader> loader_;  // none with a fixed batch
  std::unique_ptr<Loader> eval_loader_;
  std::int64_t steps_per_epoch_ = 1;  // a fixed batch is a one-batch epoch
  std::vector<double> learning_rates_;
  std::optional<CheckpointManager> checkpoints_;
  std::int64_t global_step_ = 0;
  RankLink ranks_;
  // The loop's.
  Dims input_dims_;
  std::int64_t stop_step_ = 0;
  std::optional<ProgressLine> progress_;  // rank 0's only
  Clock::time_point run_start_;
  std::int64_t images_ = 0;
  TrainSummary summary_;
};

}  // namespace parity::trainer
