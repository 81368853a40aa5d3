// Loss scaling on the GPU ([gpu]): the multi-tensor overflow check finds one
// Inf or NaN among many gradients, and a dynamic loss scale recovers from
// planted overflows in a real training run exactly as on the CPU.
#include <limits>
#include <sstream>

#include "backend_pair.hpp"
#include "parity/trainer/config/train_config.hpp"
#include "parity/trainer/train/training_run.hpp"
#include "temp_dir.hpp"

using namespace cuda_test;

TEST_CASE("the CUDA overflow check finds one Inf or NaN among many gradients", "[gpu]") {
  if (skip_without_gpu()) return;
  // Parameters of more than one 65536-element chunk, so the check spans blocks.
  auto conv = gpu().conv2d(
      {.in_channels = 64, .out_channels = 128, .kernel = 3, .padding = 1, .input = {2, 64, 8, 8}});
  auto fc = gpu().linear({128, 10, {2, 128}});
  std::vector<ParamTensors*> params;
  for (auto* op : {conv.get(), fc.get()})
    for (const ParamSlot& slot : op->parameters()) params.push_back(slot.tensors);
  const auto reset = [&] {
    for (ParamTensors* p : params) gpu().fill(p->grad, 0.5f);
  };
  reset();
  CHECK(gpu().gradients_finite(params));
  for (std::size_t which = 0; which < params.size(); ++which)
    for (const float bad :
         {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
      const Tensor& grad = params[which]->grad;
      for (const std::int64_t at : {std::int64_t(0), grad.element_count() - 1}) {
        std::vector<float> values(std::size_t(grad.element_count()), 0.5f);
        values[std::size_t(at)] = bad;
        reset();
        gpu().write(grad, values);
        INFO("parameter " << which << " element " << at << " value " << bad);
        CHECK_FALSE(gpu().gradients_finite(params));
      }
    }
  reset();
  CHECK(gpu().gradients_finite(params));
}

TEST_CASE("a dynamic loss scale on the GPU skips planted overflows and grows back", "[gpu]") {
  if (skip_without_gpu()) return;
  TempDir dir;
  const TrainConfig config = load_train_config(
      {}, {"dataset=synthetic", "net_name=resnet18", "class_num=4", "batch_size=8",
           "train_image_size=16", "synthetic_size=64", "epoch_size=1", "save_checkpoint=false",
           "device_target=GPU", "num_workers=1", "loss_scale_manager=dynamic", "loss_scale=1024",
           "loss_scale_window=2"});
  TrainOptions options;
  options.max_steps = 7;
  options.debug.overflow_steps = StepSelection::parse("2,5", "--plant-overflow");
  std::ostringstream log;
  const TrainSummary summary = train(config, options, log);
  INFO(log.str());
  CHECK(summary.steps == 7);
  CHECK(summary.overflow_steps == 2);
  CHECK(summary.overflow_skips == 2);
  // 1024, 1024 -> 2048, overflow -> 1024, 1024, 1024 -> 2048, overflow -> 1024, 1024.
  CHECK(summary.loss_scale == 1024);
}
