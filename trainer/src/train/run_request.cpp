// The checks of a training request before anything is written (run_request.hpp).
#include "run_request.hpp"

#include <cmath>

#include "backend_choice.hpp"
#include "log_numbers.hpp"
#include "parity/core/error.hpp"
#include "parity/trainer/debug/fixed_batch.hpp"
#include "parity/trainer/optim/optimizer_choice.hpp"

namespace parity::trainer {
namespace {

// What data parallel cannot do, said before any rank starts training.
void check_data_parallel(const TrainConfig& config, const TrainOptions& options) {
  if (config.precision == Precision::kFloat64)
    throw Error("precision: float64 trains in one process: its gradients are float64, and the "
                "ranks exchange float32 buckets",
                "config key 'precision'",
                "run the float64 reference without mpirun (it is for one batch's dump), or train "
                "in float32");
  if (config.skip_corrupt)
    throw Error(
        "skip_corrupt cannot be used with several ranks: a rank that skips a step would leave "
        "the others waiting in its AllReduce",
        "config key 'skip_corrupt'",
        "repair or remove the unreadable images, or train on one rank");
  if (options.debug.dump)
    throw Error("--dump writes one folder for one process", "--dump",
                "dump on a single-process run");
  if (options.debug.probe)
    throw Error("--probe-dir writes one folder for one process", "--probe-grads",
                "probe gradients on a single-process run");
}

void check_data_delay(const TrainOptions& options) {
  // Written so that NaN fails too.
  if (!(options.data_delay_ms >= 0 && std::isfinite(options.data_delay_ms)))
    throw Error("--data-delay-ms must be a non-negative number of milliseconds, got " +
                    format_number(options.data_delay_ms, "%g"),
                "--data-delay-ms", "give 0 for no delay");
  if (options.data_delay_ms > 0 && (options.debug.input_images || options.debug.input_labels))
    throw Error("--data-delay-ms delays the dataset loader, which --input-batch replaces",
                "--data-delay-ms", "leave out one of the two");
}

std::optional<Batch> fixed_batch(const DebugOptions& debug, std::int64_t classes) {
  if (!debug.input_images && !debug.input_labels) return std::nullopt;
  if (!debug.input_images || !debug.input_labels)
    throw Error("a fixed batch needs both images and labels", "--input-batch",
                "give --input-batch IMAGES.npy and --input-labels LABELS.npy");
  return read_fixed_batch(*debug.input_images, *debug.input_labels, classes);
}

void check_planted_overflow(const TrainConfig& config, const DebugOptions& debug) {
  if (debug.overflow_steps && config.loss_scale_manager == LossScaleKind::kFixed &&
      !config.drop_overflow_update)
    throw Error(
        "--plant-overflow plants what the loss scaler must catch, and this config checks "
        "no gradients (a fixed loss scale without drop_overflow_update)",
        "--plant-overflow " + debug.overflow_steps->text(),
        "add --set loss_scale_manager=dynamic or --set drop_overflow_update=true");
}

// PyTorch's SGD keeps no momentum buffer without momentum, nor does a
// dump of it: asking for one is a mistake worth saying.
void check_dumped_optimizer_state(const TrainConfig& config, const DebugOptions& debug) {
  if (debug.dump && debug.dump->what.optimizer && config.momentum == 0)
    throw Error("--dump-what optimizer dumps SGD's momentum buffers, and momentum is 0: there are "
                "none",
                "--dump-what", "leave out optimizer, or set momentum");
}

}  // namespace

CheckedRequest check_request(const TrainConfig& config, const TrainOptions& options,
                             int world_size) {
  require_trainable_optimizer(config.optimizer);  // a config naming Thor loads, trains not
  if (world_size > 1) check_data_parallel(config, options);
  check_data_delay(options);
  CheckedRequest request{config, fixed_batch(options.debug, config.class_num)};
  if (request.fixed_batch) {
    request.config.batch_size = request.fixed_batch->n;
    request.config.train_image_size = request.fixed_batch->h;
  }
  if (options.trace_steps && !options.trace)
    throw Error("--trace-steps chooses the steps of a trace, and no trace is written",
                "--trace-steps " + options.trace_steps->text(), "add --trace RUN.db");
  check_device_target(request.config);
  check_planted_overflow(request.config, options.debug);
  check_dumped_optimizer_state(request.config, options.debug);
  return request;
}

}  // namespace parity::trainer
