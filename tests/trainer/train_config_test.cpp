#include "parity/trainer/config/train_config.hpp"

#include <catch2/catch.hpp>
#include <fstream>

#include "parity/core/error.hpp"
#include "temp_dir.hpp"

using namespace parity::trainer;
namespace fs = std::filesystem;

namespace {
fs::path write_config(const TempDir& dir, const std::string& text) {
  const fs::path path = dir / "config.yaml";
  std::ofstream(path) << text;
  return path;
}
}  // namespace

TEST_CASE("a config file sets the model_zoo keys, --set overrides them", "[unit]") {
  TempDir dir;
  const auto path = write_config(dir,
                                 "net_name: resnet18\nbatch_size: 64\nlr_max: 0.256\n"
                                 "use_label_smooth: false\nweight_decay: 3.0517578125e-05\n");
  const TrainConfig config = load_train_config(path, {"batch_size=32", "lr_decay_mode=steps"});
  CHECK(name_of(config.net_name) == "resnet18");
  CHECK(config.batch_size == 32);
  CHECK(config.lr_max == 0.256);
  CHECK_FALSE(config.use_label_smooth);
  CHECK(config.weight_decay == 1.0 / 32768);
  CHECK(name_of(config.lr_decay_mode) == "steps");
  CHECK(config.epoch_size == TrainConfig{}.epoch_size);  // untouched keys keep their defaults
}

TEST_CASE("to_yaml writes every key and reads back to the same config", "[unit]") {
  TempDir dir;
  TrainConfig config = load_train_config(
      {}, {"net_name=resnet101", "momentum=0.875",
           "eval_data_path=", "checkpoint_path=out dir/ckpt", "deterministic=true"});
  const std::string yaml = to_yaml(config);
  const TrainConfig again = load_train_config(write_config(dir, yaml));
  CHECK(to_yaml(again) == yaml);
  CHECK(again.checkpoint_path == "out dir/ckpt");
  CHECK(again.deterministic);
  CHECK_THAT(describe_config_keys(),
             Catch::Contains("label_smooth_convention (a string, default pytorch)"));
}

TEST_CASE("config errors name the key, where it is, and the valid choices", "[unit]") {
  TempDir dir;
  CHECK_THROWS_WITH(load_train_config(write_config(dir, "batch_size: 64\nbatch_sise: 32\n")),
                    Catch::Contains("unknown config key 'batch_sise'") &&
                        Catch::Contains("config.yaml:2") &&
                        Catch::Contains("valid keys: net_name"));
  CHECK_THROWS_WITH(load_train_config(write_config(dir, "batch_size: many\n")),
                    Catch::Contains("'batch_size' expects an integer, got 'many'") &&
                        Catch::Contains("config.yaml:1"));
  CHECK_THROWS_WITH(load_train_config(write_config(dir, "lr_max: [1, 2]\n")),
                    Catch::Contains("expects a number, got a list"));
  CHECK_THROWS_WITH(load_train_config(write_config(dir, "batch_size: 64\n  bad indent: 1\n")),
                    Catch::Contains("not valid YAML"));
  CHECK_THROWS_WITH(load_train_config(write_config(dir, "- just\n- a list\n")),
                    Catch::Contains("must be a map"));
  CHECK_THROWS_WITH(load_train_config(dir / "missing.yaml"),
                    Catch::Contains("config file not found"));
  CHECK_THROWS_WITH(load_train_config({}, {"net_name=resnet20"}),
                    Catch::Contains("'net_name' is 'resnet20'") && Catch::Contains("resnet152"));
  CHECK_THROWS_WITH(load_train_config({}, {"lr_decay_mode=exponential"}),
                    Catch::Contains("warmup_cosine"));
  CHECK_THROWS_WITH(load_train_config({}, {"label_smooth_factor=1.5"}), Catch::Contains("[0, 1)"));
  CHECK_THROWS_WITH(load_train_config({}, {"resize_image_size=4"}),
                    Catch::Contains("resize_image_size") && Catch::Contains("got 4"));
  CHECK(load_train_config({}, {"resize_image_size=56"}).resize_image_size == 56);
  CHECK_THROWS_WITH(load_train_config({}, {"batch_size"}),
                    Catch::Contains("expected --set key=value"));
  CHECK_THROWS_WITH(load_train_config({}, {"deterministic=maybe"}),
                    Catch::Contains("expects true or false, got 'maybe'"));
  CHECK_THROWS_WITH(load_train_config({}, {"warmup_epochs=20", "epoch_size=10"}),
                    Catch::Contains("warmup_epochs"));
  CHECK_THROWS_WITH(load_train_config({}, {"device_target=TPU"}),
                    Catch::Contains("'device_target' is 'TPU'") && Catch::Contains("CPU, GPU"));
  CHECK(name_of(load_train_config({}, {"device_target=GPU"}).device_target) == "GPU");
  CHECK_THROWS_WITH(load_train_config({}, {"device_target=GPU", "precision=fp16"}),
                    Catch::Contains("'precision' is 'fp16'") &&
                        Catch::Contains("float32, float16, bfloat16, float64"));
  CHECK_THROWS_WITH(load_train_config({}, {"precision=bfloat16"}),
                    Catch::Contains("float32 or float64 with device_target CPU") &&
                        Catch::Contains("got bfloat16"));
  // float64 is the CPU's reference backend only.
  CHECK(name_of(load_train_config({}, {"precision=float64"}).precision) == "float64");
  CHECK_THROWS_WITH(load_train_config({}, {"precision=float64", "device_target=GPU"}),
                    Catch::Contains("float64 runs on the CPU's reference kernels only") &&
                        Catch::Contains("device_target: CPU"));
  CHECK(name_of(load_train_config({}, {"precision=float16", "device_target=GPU"}).precision) ==
        "float16");
  CHECK_THROWS_WITH(load_train_config({}, {"tf32=true"}),
                    Catch::Contains("'tf32'") && Catch::Contains("device_target CPU"));
  CHECK(load_train_config({}, {"tf32=true", "device_target=GPU"}).tf32);
  CHECK_FALSE(load_train_config({}, {"device_target=GPU"}).tf32);
}

TEST_CASE("every sample config loads", "[unit]") {
  int samples = 0;
  for (const auto& entry : fs::directory_iterator(PARITY_SAMPLE_CONFIGS)) {
    INFO(entry.path());
    CHECK_NOTHROW(load_train_config(entry.path()));
    ++samples;
  }
  CHECK(samples == 7);
}

TEST_CASE("the demo's recipe: one annealed epoch of ResNet-18 without augmentation", "[unit]") {
  const TrainConfig demo =
      load_train_config(fs::path(PARITY_SAMPLE_CONFIGS) / "resnet18_fashion_mnist_demo.yaml");
  CHECK(name_of(demo.net_name) == "resnet18");
  CHECK(name_of(demo.stem) == "imagenet");
  CHECK(demo.epoch_size == 1);
  CHECK_FALSE(demo.augment);
  CHECK_FALSE(demo.use_label_smooth);
  CHECK(name_of(demo.lr_decay_mode) == "warmup_cosine");
  CHECK(demo.lr_end == 0.0);  // the run ends annealed, not cut off at a high rate
}

TEST_CASE("steps_per_epoch and augment are config keys with checked values", "[unit]") {
  CHECK(load_train_config({}).steps_per_epoch == 0);
  CHECK(load_train_config({}, {"steps_per_epoch=300"}).steps_per_epoch == 300);
  CHECK_THROWS_WITH(load_train_config({}, {"steps_per_epoch=-1"}),
                    Catch::Contains("'steps_per_epoch'"));
  CHECK(load_train_config({}).augment);
  CHECK_FALSE(load_train_config({}, {"augment=false"}).augment);
  CHECK_THROWS_WITH(load_train_config({}, {"augment=sometimes"}), Catch::Contains("'augment'"));
}

TEST_CASE("THOR's keys are checked with optimizer Thor and only then", "[unit]") {
  const auto thor = [](std::vector<std::string> overrides) {
    overrides.insert(overrides.begin(), {"optimizer=Thor", "lr_init=0.05"});
    return load_train_config({}, overrides);
  };
  CHECK(thor({}).lr_end_epoch == 53);
  CHECK_THROWS_WITH(load_train_config({}, {"optimizer=Thor"}),
                    Catch::Contains("'lr_init' must be positive with optimizer Thor, got 0"));
  CHECK_THROWS_WITH(thor({"lr_decay=-1"}), Catch::Contains("'lr_decay' must not be negative"));
  CHECK_THROWS_WITH(thor({"thor_lr_decay_epochs=0"}),
                    Catch::Contains("'thor_lr_decay_epochs' must be at least 1, got 0"));
  CHECK_THROWS_WITH(thor({"damping_init=0"}), Catch::Contains("'damping_init' must be positive"));
  CHECK_THROWS_WITH(thor({"damping_decay=-0.5"}),
                    Catch::Contains("'damping_decay' must be positive, got -0.5"));
  CHECK_THROWS_WITH(thor({"frequency=0"}), Catch::Contains("'frequency' must be at least 1"));
  // Past lr_end_epoch the learning rate's base is negative: the hint says so.
  try {
    thor({"epoch_size=60"});
    FAIL("loaded");
  } catch (const parity::Error& error) {
    CHECK_THAT(error.what_failed(),
               Catch::Contains("'lr_end_epoch' must be at least epoch_size (60), got 53"));
    CHECK_THAT(error.hint(), Catch::Contains("negative base"));
  }
  CHECK(thor({"epoch_size=53"}).epoch_size == 53);
  // Another optimizer ignores them, whatever they say.
  const TrainConfig momentum =
      load_train_config({}, {"lr_end_epoch=1", "frequency=0", "split_indices=[5, 2]"});
  CHECK(momentum.frequency == 0);
}

TEST_CASE("split_indices is a list of increasing THOR layer indices", "[unit]") {
  const auto thor = [](const std::string& indices) {
    return load_train_config({}, {"optimizer=Thor", "lr_init=0.05", "split_indices=" + indices});
  };
  CHECK(TrainConfig{}.split_indices == std::vector<std::int64_t>{26, 53});
  CHECK(thor("[10, 20, 53]").split_indices == std::vector<std::int64_t>{10, 20, 53});
  CHECK(thor("[]").split_indices.empty());  // one segment
  CHECK_THROWS_WITH(thor("[53, 26]"), Catch::Contains("'split_indices' must be non-negative and "
                                                      "strictly increasing") &&
                                          Catch::Contains("got [53, 26]"));
  CHECK_THROWS_WITH(thor("[26, 26]"), Catch::Contains("strictly increasing"));
  CHECK_THROWS_WITH(thor("[-1, 26]"), Catch::Contains("got [-1, 26]"));
  CHECK_THROWS_WITH(thor("26"),
                    Catch::Contains("'split_indices' expects a list of integers, got '26'") &&
                        Catch::Contains("--set split_indices=26"));
  CHECK_THROWS_WITH(thor("[26, x]"), Catch::Contains("expects a list of integers, got 'x' in it"));
  CHECK_THROWS_WITH(thor("{a: 1}"), Catch::Contains("expects a list of integers, got a map"));
  TempDir dir;
  CHECK_THROWS_WITH(
      load_train_config(write_config(dir, "batch_size: 8\nsplit_indices: [[1]]\n")),
      Catch::Contains("got a nested list or map") && Catch::Contains("config.yaml:2"));
  CHECK_THROWS_WITH(load_train_config(write_config(dir, "split_indices:\n")),
                    Catch::Contains("expects a list of integers, got nothing"));
}

TEST_CASE("thor_allreduce is inverses or statistics", "[unit]") {
  CHECK(name_of(TrainConfig{}.thor_allreduce) == "inverses");
  CHECK(load_train_config({}, {"thor_allreduce=statistics"}).thor_allreduce ==
        ThorAllReduce::kStatistics);
  CHECK_THROWS_WITH(load_train_config({}, {"thor_allreduce=gradients"}),
                    Catch::Contains("'thor_allreduce' is 'gradients'") &&
                        Catch::Contains("inverses, statistics"));
  const std::string keys = describe_config_keys();
  CHECK_THAT(keys, Catch::Contains("  thor_allreduce (a string, default inverses): ") &&
                       Catch::Contains("statistics (the batch statistics behind the factors"));
  CHECK_THAT(keys, Catch::Contains("  split_indices (a list of integers, default [26, 53]): "));
}

TEST_CASE("THOR's keys go to YAML and read back", "[unit]") {
  TempDir dir;
  const TrainConfig config = load_train_config(
      {}, {"optimizer=Thor", "lr_init=0.05", "lr_decay=3.5", "lr_end_epoch=60",
           "thor_lr_decay_epochs=40", "damping_init=0.02", "damping_decay=0.6", "frequency=100",
           "split_indices=[10, 30, 53]", "thor_allreduce=statistics"});
  const std::string yaml = to_yaml(config);
  CHECK_THAT(yaml, Catch::Contains("split_indices: [10, 30, 53]") &&
                       Catch::Contains("thor_allreduce: statistics") &&
                       Catch::Contains("lr_end_epoch: 60"));
  const TrainConfig again = load_train_config(write_config(dir, yaml));
  CHECK(to_yaml(again) == yaml);
  CHECK(again.lr_decay == 3.5);
  CHECK(again.thor_lr_decay_epochs == 40);
  CHECK(again.damping_init == 0.02);
  CHECK(again.damping_decay == 0.6);
  CHECK(again.frequency == 100);
  CHECK(again.split_indices == std::vector<std::int64_t>{10, 30, 53});
  CHECK(again.thor_allreduce == ThorAllReduce::kStatistics);
  CHECK_THAT(to_yaml(load_train_config({}, {"split_indices=[]"})),
             Catch::Contains("split_indices: []"));
}
