#include "parity/trainer/data/loader_factory.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "parity/core/error.hpp"
#include "parity/trainer/data/image_folder.hpp"
#include "parity/trainer/data/in_memory_dataset.hpp"
#include "parity/trainer/data/synthetic_dataset.hpp"

namespace parity::trainer {
namespace {

namespace fs = std::filesystem;

const std::vector<float> kFashionMean = {0.2860f}, kFashionStd = {0.3530f};
const std::vector<float> kCifarMean = {0.4914f, 0.4822f, 0.4465f};
const std::vector<float> kCifarStd = {0.2470f, 0.2435f, 0.2616f};
const std::vector<float> kImageNetMean = {0.485f, 0.456f, 0.406f};
const std::vector<float> kImageNetStd = {0.229f, 0.224f, 0.225f};
// Pixels uniform in {0, ..., 255} / 255: mean 0.5, standard deviation
// sqrt((256^2 - 1) / 12) / 255 = 0.2898; 1/sqrt(12) = 0.2898 is the continuous limit.
const std::vector<float> kSyntheticMean = {0.5f}, kSyntheticStd = {0.2898f};

constexpr std::int64_t kFashionSide = 28, kCifarSide = 32;

// The random crop's padding: 4 pixels of the source image, scaled with it
// when resize_image_size upscales (8 for Fashion-MNIST resized to 56).
std::int64_t crop_padding(const TrainConfig& config, std::int64_t source_side) {
  if (config.resize_image_size <= 0) return 4;
  return std::max<std::int64_t>(1,
                                std::llround(4.0 * static_cast<double>(config.resize_image_size) /
                                             static_cast<double>(source_side)));
}

const char* split_name(Split split) { return split == Split::kTrain ? "train" : "test"; }

// The folder an evaluation split reads: eval_data_path, else data_path.
fs::path eval_folder(const TrainConfig& config) {
  return config.eval_data_path.empty() ? fs::path(config.data_path)
                                       : fs::path(config.eval_data_path);
}

fs::path image_folder_root(const TrainConfig& config, Split split) {
  const fs::path data = config.data_path;
  std::error_code ec;
  if (split == Split::kTrain) return fs::is_directory(data / "train", ec) ? data / "train" : data;
  if (!config.eval_data_path.empty()) return config.eval_data_path;
  if (!fs::is_directory(data / "val", ec))
    throw Error("no evaluation images: data_path has no val folder and eval_data_path is empty",
                (data / "val").string(), "set eval_data_path to the validation class folders");
  return data / "val";
}

std::shared_ptr<const Dataset> in_memory(ImageSet images, const TrainConfig& config, Split split) {
  return std::make_shared<const InMemoryDataset>(
      std::make_shared<const ImageSet>(std::move(images)),
      std::string(name_of(config.dataset)) + " " + split_name(split));
}

LoaderOptions loader_options(const TrainConfig& config, Split split) {
  LoaderOptions options;
  options.batch_size = config.batch_size;
  options.shuffle = split == Split::kTrain;
  options.drop_last = split == Split::kTrain;
  if (split == Split::kTrain) options.max_batches_per_epoch = config.steps_per_epoch;
  options.seed = config.seed;
  options.num_workers = config.num_workers;
  options.prefetch = config.prefetch;
  options.skip_corrupt = config.skip_corrupt;
  options.queue_name = split == Split::kTrain ? "train_queue" : "eval_queue";
  return options;
}

std::unique_ptr<Loader> make_loader(const TrainConfig& config, Split split, LoaderOptions options) {
  auto dataset = make_dataset(config, split);
  if (dataset->class_count() > config.class_num)
    throw Error("the " + std::string(name_of(config.dataset)) + " dataset has " +
                    std::to_string(dataset->class_count()) + " classes, more than class_num (" +
                    std::to_string(config.class_num) + ")",
                config.data_path, "set class_num to at least the number of classes");
  return std::make_unique<Loader>(std::move(dataset), make_transforms(config, split),
                                  std::move(options));
}

}  // namespace

std::shared_ptr<const Dataset> make_dataset(const TrainConfig& config, Split split) {
  const bool train = split == Split::kTrain;
  switch (config.dataset) {
    case DatasetKind::kFashionMnist:
      return in_memory(
          read_fashion_mnist(train ? fs::path(config.data_path) : eval_folder(config), split),
          config, split);
    case DatasetKind::kCifar10:
      return in_memory(
          read_cifar10(train ? fs::path(config.data_path) : eval_folder(config), split), config,
          split);
    case DatasetKind::kImageFolder:
      return std::make_shared<const ImageFolder>(image_folder_root(config, split));
    case DatasetKind::kSynthetic:
      break;
  }
  SyntheticOptions options;
  options.count = config.synthetic_size;
  options.height = options.width = train ? config.train_image_size : config.eval_image_size;
  options.channels = 3;
  options.class_count = config.class_num;
  options.seed = train ? config.seed : config.seed + 1;
  return std::make_shared<const SyntheticDataset>(options);
}

TransformPipeline make_transforms(const TrainConfig& config, Split split) {
  const bool train = split == Split::kTrain;
  const bool augment = train && config.augment;
  const std::int64_t size = train ? config.train_image_size : config.eval_image_size;
  TransformPipeline pipeline;
  switch (config.dataset) {
    case DatasetKind::kFashionMnist:
      if (config.resize_image_size > 0) pipeline.add<Resize>(config.resize_image_size);
      pipeline.add<CenterCrop>(size);
      if (augment)
        pipeline.add<RandomCrop>(size, crop_padding(config, kFashionSide))
            .add<RandomHorizontalFlip>(0.5);
      pipeline.add<Normalize>(kFashionMean, kFashionStd).add<GrayToRgb>();
      break;
    case DatasetKind::kCifar10:
      if (config.resize_image_size > 0) pipeline.add<Resize>(config.resize_image_size);
      if (size != (config.resize_image_size > 0 ? config.resize_image_size : kCifarSide))
        pipeline.add<CenterCrop>(size);
      if (augment)
        pipeline.add<RandomCrop>(size, crop_padding(config, kCifarSide))
            .add<RandomHorizontalFlip>(0.5);
      pipeline.add<Normalize>(kCifarMean, kCifarStd);
      break;
    case DatasetKind::kImageFolder:
      if (augment) {
        pipeline.add<RandomResizedCrop>(size).add<RandomHorizontalFlip>(0.5);
      } else {
        pipeline.add<Resize>(std::llround(static_cast<double>(size) * 256.0 / 224.0))
            .add<CenterCrop>(size);
      }
      pipeline.add<Normalize>(kImageNetMean, kImageNetStd);
      break;
    case DatasetKind::kSynthetic:
      if (augment) pipeline.add<RandomHorizontalFlip>(0.5);
      pipeline.add<Normalize>(kSyntheticMean, kSyntheticStd);
      break;
  }
  return pipeline;
}

std::unique_ptr<Loader> make_train_loader(const TrainConfig& config, std::int64_t num_shards,
                                          std::int64_t shard_id, profiler::Recorder* recorder,
                                          double delay_ms) {
  LoaderOptions options = loader_options(config, Split::kTrain);
  options.num_shards = num_shards;
  options.shard_id = shard_id;
  options.recorder = recorder;
  options.delay_ms = delay_ms;
  return make_loader(config, Split::kTrain, std::move(options));
}

std::unique_ptr<Loader> make_eval_loader(const TrainConfig& config) {
  return make_loader(config, Split::kTest, loader_options(config, Split::kTest));
}

}  // namespace parity::trainer
