// parity-train's two runs (training_run.hpp): train() runs a TrainingSession
// (training_session.hpp); evaluate_checkpoint() evaluates saved weights.
#include "parity/trainer/train/training_run.hpp"

#include <chrono>
#include <ostream>

#include "backend_choice.hpp"
#include "checkpoint_match.hpp"
#include "log_numbers.hpp"
#include "network_options.hpp"
#include "parity/trainer/checkpoint/training_checkpoint.hpp"
#include "parity/trainer/data/loader_factory.hpp"
#include "parity/trainer/nn/resnet.hpp"
#include "parity/trainer/train/foreign_weights.hpp"
#include "parity/trainer/train/progress_line.hpp"
#include "parity/trainer/train/state_tensors.hpp"
#include "run_evaluation.hpp"
#include "training_session.hpp"

namespace parity::trainer {

TrainSummary train(const TrainConfig& config, const TrainOptions& options, std::ostream& rank_log) {
  TrainingSession session(config, options, rank_log);
  return session.run();
}

EvalResult evaluate_checkpoint(const TrainConfig& config, const std::filesystem::path& checkpoint,
                               std::ostream& log, const std::string& map) {
  check_device_target(config);
  auto backend = make_backend(config);
  Tracing tracing;
  ResNet model(*backend, network_options(config), tracing);
  std::string origin;  // what the weights are, for the log
  if (is_training_checkpoint(checkpoint)) {
    const TrainingCheckpoint saved = read_checkpoint(checkpoint);
    check_same_network(config, saved, checkpoint.string());
    import_state(*backend, model.state(), nullptr, saved.tensors, checkpoint.string());
    origin = "epoch " + std::to_string(saved.epoch) + ", step " + std::to_string(saved.step);
  } else {
    const ForeignWeights weights = load_foreign_weights(*backend, model.state(), checkpoint, map);
    print_foreign_weights(log, "weights", checkpoint, weights);
    origin = weights.format + " weights";
  }
  auto loader = make_eval_loader(config);
  const auto start = std::chrono::steady_clock::now();
  const EvalResult result = evaluate_model(*backend, model, *loader, config.class_num);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  log << "evaluated " << checkpoint.string() << " (" << origin << ") on " << result.images
      << " images in " << format_duration(seconds) << std::endl;
  log << "top-1: " << format_number(result.top1 * 100, "%.2f")
      << "%  top-5: " << format_number(result.top5 * 100, "%.2f")
      << "%  loss: " << format_number(result.loss, "%.4f") << std::endl;
  return result;
}

}  // namespace parity::trainer
