// MindSpore model_zoo's own ResNet configs (tests/fixtures/model_zoo/, copied
// unmodified from mindspore-ai/models) load as they are: the values Parity
// uses, the keys it ignores (declared, said once), the values it reads in its
// own terms; and a typo or a wrong value of a key Parity uses is still an
// error that names it and where it is.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "parity/core/error.hpp"
#include "parity/trainer/config/train_config.hpp"
#include "temp_dir.hpp"

using namespace parity::trainer;
namespace fs = std::filesystem;
using Strings = std::vector<std::string>;

namespace {

const fs::path kFixtures = PARITY_MODEL_ZOO_CONFIGS;

struct Loaded {
  TrainConfig config;
  ConfigNotes notes;
};

Loaded load(const fs::path& file, const Strings& overrides = {}) {
  Loaded loaded;
  loaded.config = load_train_config(file, overrides, &loaded.notes);
  return loaded;
}

std::string read(const fs::path& file) {
  std::stringstream text;
  text << std::ifstream(file).rdbuf();
  return text.str();
}

// A copy of a fixture with one line replaced (`from` must occur once), or
// with `from` empty, one line added in front of the first line.
fs::path edited(const TempDir& dir, const std::string& fixture, const std::string& from,
                const std::string& to) {
  std::string text = read(kFixtures / fixture);
  if (from.empty()) {
    text = to + "\n" + text;
  } else {
    const auto at = text.find(from + "\n");
    REQUIRE(at != std::string::npos);
    REQUIRE(text.find(from + "\n", at + 1) == std::string::npos);
    text.replace(at, from.size(), to);
  }
  const fs::path path = dir / fixture;
  std::ofstream(path) << text;
  return path;
}

// The 1-based line of `text` in a fixture.
int line_of(const std::string& fixture, const std::string& text) {
  std::istringstream in(read(kFixtures / fixture));
  int number = 1;
  for (std::string line; std::getline(in, line); ++number)
    if (line == text) return number;
  FAIL("no line '" << text << "' in " << fixture);
  return 0;
}

// The keys every Momentum config of the ResNet-50 recipe ignores, in file order.
const Strings kResnet50Ignored{"enable_modelarts",
                               "data_url",
                               "train_url",
                               "checkpoint_url",
                               "run_distribute",
                               "enable_profiling",
                               "output_dir",
                               "load_path",
                               "checkpoint_file_path",
                               "infer_label",
                               "start_epoch",
                               "resume_ckpt",
                               "lars_epsilon",
                               "lars_coefficient",
                               "device_num",
                               "pre_trained",
                               "run_eval",
                               "eval_dataset_path",
                               "parameter_server",
                               "filter_weight",
                               "save_best_ckpt",
                               "eval_start_epoch",
                               "eval_interval",
                               "enable_cache",
                               "cache_session_id",
                               "mode_name",
                               "boost_mode",
                               "conv_init",
                               "dense_init",
                               "device_id",
                               "width",
                               "height",
                               "file_name",
                               "file_format",
                               "ckpt_file",
                               "network_dataset",
                               "save_graphs",
                               "save_graphs_path",
                               "has_trained_epoch",
                               "has_trained_step",
                               "result_path",
                               "label_path",
                               "img_path",
                               "enable_predict_lite_backend",
                               "enable_predict_lite_mindir",
                               "mindir_path"};

Strings without(Strings keys, const Strings& dropped) {
  for (const auto& key : dropped) std::erase(keys, key);
  return keys;
}

const std::string kAscendOnCpu =
    "device_target Ascend: Parity has no Ascend backend, this run uses the CPU "
    "(device_target: GPU, or --set device_target=GPU, runs on the CUDA backend)";
const std::string kImagenetFolder =
    "dataset imagenet2012 read as imagefolder (class folders under data_path, as model_zoo "
    "reads ImageNet)";
std::string fusion_read(const std::string& list, const std::string& split) {
  return "all_reduce_fusion_config " + list + " read as allreduce_split " + split +
         " (inclusive segment ends, as the seeds' guide reads it; docs/distributed.md)";
}

}  // namespace

TEST_CASE("model_zoo's ResNet-50 CIFAR-10 config loads as it is", "[unit]") {
  const auto [config, notes] = load(kFixtures / "resnet50_cifar10_config.yaml");
  CHECK(name_of(config.net_name) == "resnet50");
  CHECK(config.class_num == 10);
  CHECK(name_of(config.dataset) == "cifar10");
  CHECK(config.data_path == "/cache/data");
  CHECK(config.train_image_size == 224);
  CHECK(config.eval_image_size == 224);
  CHECK(config.batch_size == 32);
  CHECK(config.epoch_size == 90);
  CHECK(name_of(config.optimizer) == "Momentum");
  CHECK(name_of(config.lr_decay_mode) == "poly");
  CHECK(config.lr_init == 0.01);
  CHECK(config.lr_max == 0.1);
  CHECK(config.lr_end == 0.00001);
  CHECK(config.warmup_epochs == 5);
  CHECK(config.momentum == 0.9);
  CHECK(config.weight_decay == 0.0001);
  CHECK(config.loss_scale == 1024);
  CHECK(config.save_checkpoint);
  CHECK(config.save_checkpoint_epochs == 5);
  CHECK(config.keep_checkpoint_max == 10);
  CHECK(config.checkpoint_path == "./checkpoint/");
  CHECK(name_of(config.device_target) == "CPU");
  CHECK(config.allreduce_split == "index:[85,160]");
  // Not in the file: Parity's defaults (docs/trainer.md says where they differ from model_zoo's).
  CHECK(config.use_label_smooth == TrainConfig{}.use_label_smooth);
  CHECK(notes.ignored_keys == kResnet50Ignored);
  CHECK(notes.readings == Strings{kAscendOnCpu, fusion_read("[85, 160]", "index:[85,160]")});

  const Strings lines = notes.lines();
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] ==
        "config: ignoring 46 model_zoo keys Parity does not use (`parity-train keys` says why): "
        "enable_modelarts, data_url, train_url, checkpoint_url, run_distribute, enable_profiling, "
        "output_dir, load_path, checkpoint_file_path, infer_label, start_epoch, resume_ckpt, "
        "lars_epsilon, lars_coefficient, device_num, pre_trained, run_eval, eval_dataset_path, "
        "parameter_server, filter_weight, save_best_ckpt, eval_start_epoch, eval_interval, "
        "enable_cache, cache_session_id, mode_name, boost_mode, conv_init, dense_init, device_id, "
        "width, height, file_name, file_format, ckpt_file, network_dataset, save_graphs, "
        "save_graphs_path, has_trained_epoch, has_trained_step, result_path, label_path, "
        "img_path, enable_predict_lite_backend, enable_predict_lite_mindir, mindir_path");
  CHECK(lines[1] == "config: " + kAscendOnCpu);
}

TEST_CASE("model_zoo's ResNet-50 ImageNet config loads: linear schedule, image folder", "[unit]") {
  const auto [config, notes] = load(kFixtures / "resnet50_imagenet2012_config.yaml");
  CHECK(config.class_num == 1001);
  CHECK(name_of(config.dataset) == "imagefolder");
  CHECK(config.batch_size == 256);
  CHECK(name_of(config.lr_decay_mode) == "linear");
  CHECK(config.lr_init == 0);
  CHECK(config.lr_max == 0.8);
  CHECK(config.lr_end == 0);
  CHECK(config.warmup_epochs == 2);
  CHECK(config.use_label_smooth);
  CHECK(config.label_smooth_factor == 0.1);
  CHECK(name_of(config.device_target) == "CPU");
  CHECK(config.allreduce_split == "index:[85,160]");
  CHECK(notes.ignored_keys == kResnet50Ignored);
  CHECK(notes.readings ==
        Strings{kAscendOnCpu, kImagenetFolder, fusion_read("[85, 160]", "index:[85,160]")});
}

TEST_CASE("model_zoo's THOR configs load into THOR's keys, said unused with another optimizer",
          "[unit]") {
  const Strings ignored = without(kResnet50Ignored, {"lars_epsilon", "lars_coefficient"});
  {
    const auto [config, notes] = load(kFixtures / "resnet50_imagenet2012_Ascend_Thor_config.yaml");
    CHECK(name_of(config.optimizer) == "Thor");
    CHECK(config.lr_init == 0.05803);
    CHECK(config.lr_decay == 4.0839);
    CHECK(config.lr_end_epoch == 53);
    CHECK(config.damping_init == 0.03);
    CHECK(config.damping_decay == 0.50036);
    CHECK(config.frequency == 834);
    CHECK(config.weight_decay == 0.0005);
    CHECK(config.loss_scale == 128);
    CHECK(config.epoch_size == 45);
    CHECK(config.keep_checkpoint_max == 15);
    CHECK(name_of(config.device_target) == "CPU");
    CHECK(config.allreduce_split == "index:[80,160]");
    // Not in model_zoo's files: train.py's constants, Parity's defaults.
    CHECK(config.thor_lr_decay_epochs == 39);
    CHECK(config.split_indices == std::vector<std::int64_t>{26, 53});
    CHECK(name_of(config.thor_allreduce) == "inverses");
    CHECK(notes.ignored_keys == ignored);
    CHECK(notes.readings ==
          Strings{kAscendOnCpu, kImagenetFolder, fusion_read("[80, 160]", "index:[80,160]")});
  }
  {
    const auto [config, notes] = load(kFixtures / "resnet50_imagenet2012_GPU_Thor_config.yaml");
    CHECK(name_of(config.optimizer) == "Thor");
    CHECK(config.lr_init == 0.05672);
    CHECK(config.lr_decay == 4.9687);
    CHECK(config.lr_end_epoch == 50);
    CHECK(config.damping_init == 0.02345);
    CHECK(config.damping_decay == 0.5467);
    CHECK(config.frequency == 834);
    CHECK(name_of(config.device_target) == "GPU");
    CHECK(config.allreduce_split == "index:[75,155]");
    CHECK(notes.ignored_keys == ignored);
    CHECK(notes.readings == Strings{kImagenetFolder, fusion_read("[75, 155]", "index:[75,155]")});
  }
  // Trained with Momentum instead, THOR's keys change nothing, and a reading
  // says so; their values are not checked (lr_end_epoch 1 is below epoch_size).
  const auto [config, notes] = load(kFixtures / "resnet50_imagenet2012_GPU_Thor_config.yaml",
                                    {"optimizer=momentum", "lr_end_epoch=1"});
  CHECK(name_of(config.optimizer) == "Momentum");
  CHECK(notes.ignored_keys == ignored);
  CHECK(notes.readings ==
        Strings{kImagenetFolder, fusion_read("[75, 155]", "index:[75,155]"),
                "optimizer Momentum: THOR's keys lr_decay, lr_end_epoch, damping_init, "
                "damping_decay, frequency are not used (optimizer: Thor's)"});
}

TEST_CASE("model_zoo's Boost config loads: LARS, its keys held for LARS", "[unit]") {
  const auto [config, notes] = load(kFixtures / "resnet50_imagenet2012_Boost_config.yaml");
  CHECK(name_of(config.optimizer) == "LARS");
  CHECK(config.lr_max == 13.01);
  CHECK(config.momentum == 0.85);
  CHECK(config.weight_decay == 5e-5);
  CHECK(config.train_image_size == 192);
  CHECK(config.eval_image_size == 224);
  CHECK_FALSE(config.save_checkpoint);
  CHECK(notes.ignored_keys == without(kResnet50Ignored, {"lars_epsilon", "lars_coefficient"}));
}

TEST_CASE("model_zoo's other ResNet configs load: step schedule, lr, three fusion segments",
          "[unit]") {
  {
    const auto [config, notes] = load(kFixtures / "resnet18_cifar10_config.yaml");
    CHECK(name_of(config.net_name) == "resnet18");
    CHECK(config.allreduce_split == TrainConfig{}.allreduce_split);  // no fusion config
    CHECK(notes.readings == Strings{kAscendOnCpu});
  }
  {
    const auto [config, notes] = load(kFixtures / "resnet34_imagenet2012_config.yaml");
    CHECK(name_of(config.net_name) == "resnet34");
    CHECK(name_of(config.lr_decay_mode) == "linear");
  }
  {
    // ResNet-101's recipe rate is `lr`, model_zoo's warmup_cosine_annealing_lr:
    // our cosine from lr_init 0 (the default) to lr_max.
    const auto [config, notes] = load(kFixtures / "resnet101_imagenet2012_config.yaml");
    CHECK(name_of(config.net_name) == "resnet101");
    CHECK(name_of(config.lr_decay_mode) == "cosine");
    CHECK(config.lr_max == 0.1);
    CHECK(config.lr_init == 0);
    CHECK(config.allreduce_split == "index:[80,210,313]");
    CHECK(notes.readings == Strings{kAscendOnCpu, kImagenetFolder,
                                    "lr 0.1 read as lr_max (model_zoo's ResNet-101 recipe)",
                                    fusion_read("[80, 210, 313]", "index:[80,210,313]")});
    const auto set = load(kFixtures / "resnet101_imagenet2012_config.yaml", {"lr_max=0.2"});
    CHECK(set.config.lr_max == 0.2);
    CHECK(set.notes.readings[2] == "lr 0.1 not used: lr_max is given");
  }
  {
    const auto [config, notes] = load(kFixtures / "resnet152_imagenet2012_config.yaml");
    CHECK(name_of(config.net_name) == "resnet152");
    CHECK(name_of(config.lr_decay_mode) == "step");
    CHECK(config.lr_end == 0.0001);
    CHECK(config.allreduce_split == "index:[180,313]");
    CHECK(std::find(notes.ignored_keys.begin(), notes.ignored_keys.end(), "save_checkpoint_path") !=
          notes.ignored_keys.end());
  }
}

TEST_CASE("in a model_zoo file a typo is still refused, naming the key, file and line", "[unit]") {
  TempDir dir;
  const std::string fixture = "resnet50_cifar10_config.yaml";
  const int line = line_of(fixture, "run_distribute: False");
  const auto typo = edited(dir, fixture, "run_distribute: False", "run_distribte: False");
  CHECK_THROWS_WITH(load_train_config(typo),
                    Catch::Contains("unknown config key 'run_distribte'") &&
                        Catch::Contains(typo.string() + ":" + std::to_string(line)) &&
                        Catch::Contains("valid keys: net_name"));
  const auto ours = edited(dir, fixture, "lr_max: 0.1", "lr_maxx: 0.1");
  CHECK_THROWS_WITH(load_train_config(ours), Catch::Contains("unknown config key 'lr_maxx'"));
  CHECK_THROWS_WITH(load_train_config(kFixtures / fixture, {"run_distribte=True"}),
                    Catch::Contains("unknown config key 'run_distribte'") &&
                        Catch::Contains("--set run_distribte=True"));
}

TEST_CASE("in a model_zoo file the keys Parity uses keep their exact errors", "[unit]") {
  TempDir dir;
  const std::string fixture = "resnet50_imagenet2012_config.yaml";
  const auto where = [&](const std::string& text) {
    return fixture + ":" + std::to_string(line_of(fixture, text));
  };
  CHECK_THROWS_WITH(load_train_config(edited(dir, fixture, "batch_size: 256", "batch_size: many")),
                    Catch::Contains("config key 'batch_size' expects an integer, got 'many'") &&
                        Catch::Contains(where("batch_size: 256")));
  CHECK_THROWS_WITH(
      load_train_config(edited(dir, fixture, "lr_decay_mode: \"linear\"", "lr_decay_mode: exp")),
      Catch::Contains("config key 'lr_decay_mode' is 'exp'") &&
          Catch::Contains("cosine, steps, step, poly, linear, warmup_cosine, constant"));
  CHECK_THROWS_WITH(
      load_train_config(edited(dir, fixture, "optimizer: \"Momentum\"", "optimizer: \"Adam\"")),
      Catch::Contains("config key 'optimizer' is 'Adam'") &&
          Catch::Contains("Momentum, Thor, LARS"));
  CHECK_THROWS_WITH(
      load_train_config(edited(dir, fixture, "device_target: \"Ascend\"", "device_target: TPU")),
      Catch::Contains("config key 'device_target' is 'TPU'") && Catch::Contains("CPU, GPU"));
  CHECK_THROWS_WITH(
      load_train_config(edited(dir, fixture, "dataset: \"imagenet2012\"", "dataset: imagenet")),
      Catch::Contains("config key 'dataset' is 'imagenet'"));
  CHECK_THROWS_WITH(load_train_config(edited(dir, fixture, "class_num: 1001", "class_num: 1")),
                    Catch::Contains("config key 'class_num' must be at least 2, got 1"));
  CHECK_THROWS_WITH(load_train_config(edited(dir, fixture, "momentum: 0.9", "momentum: [0.9]")),
                    Catch::Contains("config key 'momentum' expects a number, got a list") &&
                        Catch::Contains(where("momentum: 0.9")));
  CHECK_THROWS_WITH(load_train_config(kFixtures / fixture, {"warmup_epochs=100"}),
                    Catch::Contains("warmup_epochs"));
}

TEST_CASE("model_zoo keys that would change the run are ignored only while unset", "[unit]") {
  TempDir dir;
  const std::string fixture = "resnet50_cifar10_config.yaml";
  const auto refused = [&](const std::string& from, const std::string& to,
                           const std::vector<std::string>& phrases) {
    const auto file = edited(dir, fixture, from, to);
    INFO(to);
    try {
      load_train_config(file);
      FAIL("loaded");
    } catch (const parity::Error& error) {
      CHECK(error.where() == file.string() + ":" + std::to_string(line_of(fixture, from)));
      for (const auto& phrase : phrases) CHECK_THAT(error.what(), Catch::Contains(phrase));
    }
  };
  refused("pre_trained: \"\"", "pre_trained: \"/cache/resnet50.ckpt\"",
          {"model_zoo key 'pre_trained' is '/cache/resnet50.ckpt'", "only while it is empty",
           "--init-weights FILE"});
  refused("resume_ckpt: \"\"", "resume_ckpt: ./r.ckpt", {"'resume_ckpt'", "--resume"});
  refused("start_epoch: 0", "start_epoch: 30", {"'start_epoch' is '30'", "--resume"});
  refused("eval_dataset_path: \"\"", "eval_dataset_path: /data/val",
          {"'eval_dataset_path'", "eval_data_path"});
  // Ignored keys take any value, lists and maps too (model_zoo's Config does).
  const auto any = edited(dir, fixture, "infer_label: \"\"", "infer_label: {a: [1, 2]}");
  CHECK(load(any).notes.ignored_keys == kResnet50Ignored);
}

TEST_CASE("all_reduce_fusion_config is read as allreduce_split unless that is given", "[unit]") {
  TempDir dir;
  const std::string fixture = "resnet50_cifar10_config.yaml";
  const auto given = load(kFixtures / fixture, {"allreduce_split=split:[85,160]"});
  CHECK(given.config.allreduce_split == "split:[85,160]");
  CHECK(given.notes.readings.back() ==
        "all_reduce_fusion_config [85, 160] not used: allreduce_split split:[85,160] is given");
  const auto in_file = load(edited(dir, fixture, "", "allreduce_split: one"));
  CHECK(in_file.config.allreduce_split == "one");

  const std::string line = std::to_string(line_of(fixture, "all_reduce_fusion_config:"));
  CHECK_THROWS_WITH(
      load_train_config(edited(dir, fixture, "    - 85", "    - [85]")),
      Catch::Contains("config key 'all_reduce_fusion_config' expects a list of parameter "
                      "indices, got [[85], 160]") &&
          Catch::Contains(fixture + ":" + line));
  CHECK_THROWS_WITH(load_train_config(edited(dir, fixture, "    - 85", "    - 185")),
                    Catch::Contains("must increase") &&
                        Catch::Contains("all_reduce_fusion_config") &&
                        Catch::Contains(fixture + ":" + line));
  // As a --set too, as model_zoo's command line takes it.
  CHECK(load_train_config({}, {"all_reduce_fusion_config=[85, 160]"}).allreduce_split ==
        "index:[85,160]");
}

TEST_CASE("only the first YAML document of a config is read", "[unit]") {
  TempDir dir;
  const fs::path two = dir / "two.yaml";
  std::ofstream(two) << "batch_size: 8\n---\nbatch_size: \"Batch size for training\"\n"
                        "num_classes: \"Class for dataset\"\n";
  CHECK(load_train_config(two).batch_size == 8);
  const fs::path help_only = dir / "help_only.yaml";
  std::ofstream(help_only) << "---\n---\nbatch_size: \"help\"\n";
  CHECK(load_train_config(help_only).batch_size == TrainConfig{}.batch_size);
  const fs::path four = dir / "four.yaml";
  std::ofstream(four) << "batch_size: 8\n---\na: 1\n---\nb: 2\n---\nc: 3\n";
  CHECK_THROWS_WITH(load_train_config(four),
                    Catch::Contains("at most 3 YAML documents") && Catch::Contains("four.yaml"));
}

TEST_CASE("a model_zoo key whose value is a map is ignored like the others", "[unit]") {
  // The newest resnet50_imagenet2012_config.yaml ends its first document so.
  TempDir dir;
  const fs::path lite = dir / "lite.yaml";
  std::ofstream(lite) << "batch_size: 8\nenable_predict_lite_mindir: False\n"
                         "lite_context_config: {\"target\": \"gpu\", \"device_id\": 0}\n";
  const Loaded loaded = load(lite);
  CHECK(loaded.config.batch_size == 8);
  CHECK(loaded.notes.ignored_keys == Strings{"enable_predict_lite_mindir", "lite_context_config"});
}

TEST_CASE("model_zoo's spellings of our values: Ascend, imagenet2012, the optimizer's case",
          "[unit]") {
  ConfigNotes notes;
  const TrainConfig config = load_train_config(
      {}, {"device_target=Ascend", "dataset=imagenet2012", "optimizer=LARS", "optimizer=MOMENTUM"},
      &notes);
  CHECK(name_of(config.device_target) == "CPU");
  CHECK(name_of(config.dataset) == "imagefolder");
  CHECK(name_of(config.optimizer) == "Momentum");
  CHECK(notes.readings == Strings{kAscendOnCpu, kImagenetFolder});
  CHECK(notes.ignored_keys.empty());
  CHECK(name_of(load_train_config({}, {"optimizer=thor", "lr_init=0.05"}).optimizer) == "Thor");
  // The effective values are what a trace and a checkpoint record.
  CHECK_THAT(to_yaml(config), Catch::Contains("device_target: CPU") &&
                                  Catch::Contains("dataset: imagefolder") &&
                                  Catch::Contains("optimizer: Momentum"));
  // A config without model_zoo keys has nothing to say.
  ConfigNotes quiet;
  load_train_config({}, {"batch_size=8"}, &quiet);
  CHECK(quiet.lines().empty());
}

TEST_CASE("parity-train keys lists the model_zoo keys with what it does with them", "[unit]") {
  const std::string keys = describe_config_keys();
  CHECK_THAT(keys, Catch::Contains("  optimizer (a string, default Momentum): "));
  CHECK_THAT(keys, Catch::Contains("  run_distribute: ignored; mpirun decides the ranks"));
  CHECK_THAT(keys,
             Catch::Contains("  pre_trained: ignored while empty (or 0); start from saved weights "
                             "with --init-weights FILE"));
  // THOR's model_zoo keys are Parity's own, in the first list.
  CHECK_THAT(keys, Catch::Contains("  frequency (an integer, default 834): Thor: steps between"));
  CHECK_THAT(keys, Catch::Contains("  lars_epsilon: ignored unless optimizer is LARS; "));
  CHECK_THAT(keys, Catch::Contains("  all_reduce_fusion_config: read as allreduce_split"));
}
