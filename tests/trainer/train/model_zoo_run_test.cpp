// End-to-end: `parity-train` with MindSpore model_zoo configs. The THOR
// recipes (tests/fixtures/model_zoo/) train; the LARS one loads but is
// refused before training, with exit code 2 and the way to train with
// Momentum; a config
// carrying model_zoo's other keys, its help document and device_target Ascend
// trains on the CPU, says once what it ignored and read, and records the
// effective values.
#include <catch2/catch.hpp>
#include <fstream>

#include "parity/trainer/checkpoint/training_checkpoint.hpp"
#include "temp_dir.hpp"
#include "train_cli.hpp"

namespace fs = std::filesystem;
using namespace parity_train_cli;

namespace {

std::size_t occurrences(const std::string& text, const std::string& phrase) {
  std::size_t count = 0;
  for (auto at = text.find(phrase); at != std::string::npos; at = text.find(phrase, at + 1))
    ++count;
  return count;
}

}  // namespace

TEST_CASE("parity-train train refuses model_zoo's LARS config, saying how to train", "[e2e]") {
  TempDir dir;
  const fs::path fixtures = PARITY_MODEL_ZOO_CONFIGS;
  const fs::path checkpoints = dir / "checkpoints";
  const auto run = parity_train({"train", "--config",
                                 (fixtures / "resnet50_imagenet2012_Boost_config.yaml").string(),
                                 "--set", "checkpoint_path=" + checkpoints.string(), "--trace",
                                 (dir / "run.db").string()});
  check_refused(run, {"optimizer LARS is not implemented yet", "config key 'optimizer'",
                      "--set optimizer=Momentum"});
  CHECK(occurrences(run.err, "config: ignoring ") == 1);
  CHECK(run.out.empty());
  CHECK_FALSE(fs::exists(checkpoints));
  CHECK_FALSE(fs::exists(dir / "run.db"));
}

TEST_CASE("model_zoo's THOR configs train ResNet-50 with THOR's 54 layers", "[e2e]") {
  // The recipes as they are (their schedules, damping, frequency 834, loss
  // scale 128, 1001 classes), on the CPU and synthetic 32-pixel images for two steps.
  TempDir dir;
  const fs::path fixtures = PARITY_MODEL_ZOO_CONFIGS;
  for (const std::string file :
       {"resnet50_imagenet2012_GPU_Thor_config.yaml", "resnet50_imagenet2012_Ascend_Thor_config.yaml"}) {
    INFO(file);
    const fs::path checkpoints = dir / file / "checkpoints";
    const auto run = parity_train(
        {"train", "--config", (fixtures / file).string(), "--set", "dataset=synthetic", "--set",
         "synthetic_size=16", "--set", "batch_size=8", "--set", "train_image_size=32", "--set",
         "eval_image_size=32", "--set", "epoch_size=1", "--set", "threads=2", "--set",
         "device_target=CPU", "--set",
         "checkpoint_path=" + checkpoints.string(), "--max-steps", "2", "--log-every", "1"});
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(loss_lines(run.out).size() == 2);
    const auto saved = parity::trainer::read_checkpoint(last_checkpoint(run.out));
    std::size_t inverses = 0;
    for (const auto& tensor : saved.tensors) inverses += tensor.name.starts_with("optimizer.thor.");
    CHECK(inverses == 2 * 54);  // A and G of 53 convolutions and the classifier
  }
}

TEST_CASE("a config with model_zoo's keys trains on the CPU and says once what it ignored",
          "[e2e]") {
  TempDir dir;
  Config config(dir.path());
  config.set("epoch_size", "1").set("device_target", "\"Ascend\"").set("optimizer", "\"Momentum\"");
  const fs::path file = config.write(dir / "model_zoo.yaml");
  // model_zoo's own keys, a fusion config for ResNet-18's 62 parameters, and
  // the help document model_zoo's files end with.
  std::ofstream(file, std::ios::app)
      << "enable_modelarts: False\nrun_distribute: False\ndevice_num: 1\n"
         "pre_trained: \"\"\nboost_mode: \"O0\"\nall_reduce_fusion_config:\n    - 20\n    - 40\n"
         "---\n# Help description for each configuration\n"
         "batch_size: \"Batch size for training and evaluation\"\n"
         "num_classes: \"Class for dataset\"\n";

  const auto trained = parity_train({"train", "--config", file.string(), "--max-steps", "1"});
  INFO(trained.err);
  REQUIRE(trained.exit_code == 0);
  CHECK(occurrences(trained.err,
                    "parity: info: config: ignoring 5 model_zoo keys Parity does not use "
                    "(`parity-train keys` says why): enable_modelarts, run_distribute, "
                    "device_num, pre_trained, boost_mode\n") == 1);
  CHECK(occurrences(trained.err,
                    "parity: info: config: device_target Ascend: Parity has no "
                    "Ascend backend, this run uses the CPU") == 1);
  CHECK(occurrences(trained.err,
                    "config: all_reduce_fusion_config [20, 40] read as "
                    "allreduce_split index:[20,40]") == 1);
  CHECK(occurrences(trained.err, "warning") == 0);

  // The checkpoint records what the run was: the CPU, the split, Momentum.
  const auto saved = parity::trainer::read_checkpoint(last_checkpoint(trained.out));
  CHECK_THAT(saved.config_yaml, Catch::Contains("device_target: CPU") &&
                                    Catch::Contains("allreduce_split: index:[20,40]") &&
                                    Catch::Contains("optimizer: Momentum"));

  const auto evaluated = parity_train(
      {"eval", "--config", file.string(), "--checkpoint", last_checkpoint(trained.out).string()});
  INFO(evaluated.err);
  CHECK(evaluated.exit_code == 0);
  CHECK(occurrences(evaluated.err, "config: ignoring 5 model_zoo keys") == 1);
}
