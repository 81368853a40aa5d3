// TrainConfig: every setting of a training run, read from a YAML file with the
// MindSpore model_zoo key names of our seeds (batch_size, epoch_size, lr_max,
// ...) and overridden by `--set key=value`. model_zoo's own ResNet configs load
// as they are: their first YAML document is the config (the others are its
// help texts), and their keys that Parity does not use are declared, ignored
// and reported (ConfigNotes). Unknown keys, wrong types and out-of-range values
// are errors that name the key, the file and line, and the valid choices. The
// closed-set keys are read once into enums (config/config_choices.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "parity/trainer/config/config_choices.hpp"

namespace parity::trainer {

struct TrainConfig {
  // Model
  NetName net_name = NetName::kResNet50;
  std::int64_t class_num = 10;
  bool zero_init_residual = false;  // zero-init each block's last BN weight
  Stem stem = Stem::kAuto;

  // Data
  DatasetKind dataset = DatasetKind::kFashionMnist;
  std::string data_path = "/usr/share/datasets/fashion-mnist";
  std::string eval_data_path;  // empty: the dataset's own test split
  std::int64_t train_image_size = 32;
  std::int64_t eval_image_size = 32;
  std::int64_t resize_image_size = 0;  // fashion_mnist, cifar10: upscale first (0: keep)
  bool augment = true;                 // training images: random crop and flip
  std::int64_t num_workers = 2;
  std::int64_t prefetch = 4;           // batches the loader may hold ready
  bool skip_corrupt = false;           // skip and count unreadable images
  std::int64_t synthetic_size = 4096;  // images in the synthetic dataset

  // Optimization
  std::int64_t batch_size = 128;
  std::int64_t epoch_size = 10;
  std::int64_t steps_per_epoch = 0;                    // 0: one pass over the training set
  OptimizerKind optimizer = OptimizerKind::kMomentum;  // Thor and LARS load but do not train yet
  LrDecayMode lr_decay_mode = LrDecayMode::kCosine;
  double lr_init = 0.0;
  double lr_max = 0.1;
  double lr_end = 0.0;
  double warmup_epochs = 0.0;
  double momentum = 0.9;
  bool nesterov = false;
  double weight_decay = 1e-4;  // not applied to BN weights and biases
  bool use_label_smooth = true;
  double label_smooth_factor = 0.1;
  SmoothingConvention label_smooth_convention = SmoothingConvention::kPyTorch;
  double loss_scale = 1.0;  // the fixed scale, or the dynamic scale's start
  LossScaleKind loss_scale_manager = LossScaleKind::kFixed;  // MindSpore's two managers
  bool drop_overflow_update = false;      // fixed: skip a step whose gradients overflow
  double loss_scale_factor = 2.0;         // dynamic: the step up and down
  std::int64_t loss_scale_window = 2000;  // dynamic: clean steps before a step up

  // THOR (optimizer: Thor): model_zoo's keys and train.py's constants (docs/thor.md)
  double lr_decay = 4.0839;                // get_thor_lr's decay exponent
  std::int64_t lr_end_epoch = 53;          // get_thor_lr's total_epochs
  std::int64_t thor_lr_decay_epochs = 39;  // get_thor_lr's decay_epochs (train.py passes 39)
  double damping_init = 0.03;
  double damping_decay = 0.50036;
  std::int64_t frequency = 834;  // steps between THOR's factor updates and inversions
  // THOR layer indices ending each AllReduce segment
  std::vector<std::int64_t> split_indices = {26, 53};
  ThorAllReduce thor_allreduce = ThorAllReduce::kInverses;  // what data parallel averages

  // Checkpoints
  bool save_checkpoint = true;
  std::int64_t save_checkpoint_epochs = 1;
  std::int64_t keep_checkpoint_max = 5;
  std::string checkpoint_path = "checkpoints";
  std::string checkpoint_prefix = "resnet";  // files: PREFIX-EPOCH_STEP.safetensors

  // Runtime
  DeviceTarget device_target = DeviceTarget::kCpu;  // MindSpore's key
  // GPU: float32, or float16 / bfloat16 activations and products with float32
  // master weights, gradients and BN statistics (MindSpore's amp_level O2).
  Precision precision = Precision::kFloat32;
  bool tf32 = false;         // GPU float32: TF32 tensor cores for convolutions and the classifier
  std::int64_t threads = 0;  // 0: all cores
  std::int64_t seed = 1;
  bool deterministic = false;  // pin the thread count: bit-reproducible runs and resumes

  // Data parallel (under mpirun): how gradients are grouped into AllReduce
  // buckets, in any form of parity/profiler/allreduce_split.hpp.
  std::string allreduce_split = "mb:25";
};

// What reading a config did besides setting Parity's keys: the model_zoo
// keys it ignored, the model_zoo values it read in Parity's terms
// (device_target Ascend, all_reduce_fusion_config, ...) and THOR's keys set
// while another optimizer trains. parity-train says them once, as information.
struct ConfigNotes {
  std::vector<std::string> ignored_keys;  // in the order met
  std::vector<std::string> readings;      // one sentence each
  // "config: ignoring N model_zoo keys Parity does not use ...: a, b" and
  // "config: <reading>", one line each; none when there is nothing to say.
  std::vector<std::string> lines() const;
};

// Reads `file` (empty: start from the defaults), then applies `overrides`
// ("key=value", values in YAML syntax), then validates the whole config.
// `notes`, when given, receives what the reading ignored or translated.
TrainConfig load_train_config(const std::filesystem::path& file,
                              const std::vector<std::string>& overrides = {},
                              ConfigNotes* notes = nullptr);

// A config from YAML text (a checkpoint's stored config); `source` names it in errors.
TrainConfig parse_train_config(const std::string& yaml, const std::string& source);

// Checks ranges and choices across the whole config.
void validate(const TrainConfig& config);

// The config as YAML with every key, in schema order: what a trace's
// meta.config and a checkpoint store, and what load_train_config reads back.
std::string to_yaml(const TrainConfig& config);

// One line per key: name, type, default and what it means, then the
// model_zoo keys Parity reads and ignores, each with its reason (for `keys`).
std::string describe_config_keys();

}  // namespace parity::trainer
