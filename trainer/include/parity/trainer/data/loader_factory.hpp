// The training and evaluation loaders a TrainConfig asks for: which dataset
// (config.dataset), where from, and which transforms. The choices:
//
// fashion_mnist  data_path holds Debian's dataset-fashion-mnist files
//                (read_fashion_mnist); eval reads the t10k split of
//                eval_data_path, or of data_path when that is empty.
//   train: CenterCrop(train_image_size) (pads 28 -> 32 with zeros, as the
//          model's input is at least 32), RandomCrop(train_image_size,
//          padding=4), RandomHorizontalFlip(0.5), Normalize(0.2860, 0.3530)
//          (the training set's pixel mean and standard deviation), GrayToRgb
//          (ResNet takes 3 channels).
//   eval:  CenterCrop(eval_image_size), Normalize(0.2860, 0.3530), GrayToRgb.
//   resize_image_size R > 0 puts Resize(R) (bilinear) first in both, and the
//   padding becomes round(4 * R / 28): the same recipe on upscaled images,
//   for the ImageNet stem, which wants more than 32 px.
// cifar10        data_path holds the binary batches (read_cifar10); eval as
//                for fashion_mnist (test_batch.bin).
//   train: [CenterCrop(train_image_size) when it is not 32], RandomCrop(
//          train_image_size, padding=4), RandomHorizontalFlip(0.5),
//          Normalize((0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)).
//   eval:  [CenterCrop(eval_image_size) when it is not 32], Normalize(same).
//   resize_image_size R > 0: Resize(R) first, CenterCrop when the size is
//   not R, padding round(4 * R / 32).
// imagefolder    JPEG class folders (ImageFolder). Training reads
//                data_path/train when it exists (the seeds' layout), else
//                data_path; eval reads eval_data_path, else data_path/val.
//   train: RandomResizedCrop(train_image_size), RandomHorizontalFlip(0.5),
//          Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225)).
//   eval:  Resize(round(eval_image_size * 256 / 224)),
//          CenterCrop(eval_image_size), Normalize(ImageNet's).
// synthetic      synthetic_size random images (SyntheticDataset) of
//                train_image_size (eval: eval_image_size), 3 channels,
//                class_num classes, from seed (eval: seed + 1, other images).
//   train: RandomHorizontalFlip(0.5), Normalize(0.5, 0.2898) (the mean and
//          standard deviation of uniform pixels: inputs of unit variance).
//   eval:  Normalize(0.5, 0.2898).
//
// Training shuffles and drops the last partial batch (as the seeds'
// create_dataset does with drop_remainder=True); evaluation keeps the order
// and every sample. Both take batch_size, num_workers, prefetch,
// skip_corrupt and seed from the config. A dataset with more classes than
// class_num is an error (fewer is allowed: MindSpore's ImageNet head has 1001).
#pragma once

#include <cstdint>
#include <memory>

#include "parity/trainer/config/train_config.hpp"
#include "parity/trainer/data/dataset.hpp"
#include "parity/trainer/data/image_set.hpp"
#include "parity/trainer/data/loader.hpp"
#include "parity/trainer/data/transforms.hpp"

namespace parity::profiler {
class Recorder;
}

namespace parity::trainer {

// The dataset config.dataset names, for one split.
std::shared_ptr<const Dataset> make_dataset(const TrainConfig& config, Split split);
// The transforms listed above for one split.
TransformPipeline make_transforms(const TrainConfig& config, Split split);

// The training loader of shard `shard_id` of `num_shards`, recording its
// queue (as "train_queue") into `recorder` when given, sleeping `delay_ms`
// per batch (LoaderOptions::delay_ms: a planted slow input pipeline).
std::unique_ptr<Loader> make_train_loader(const TrainConfig& config, std::int64_t num_shards = 1,
                                          std::int64_t shard_id = 0,
                                          profiler::Recorder* recorder = nullptr,
                                          double delay_ms = 0);
// The evaluation loader: every sample once, in order, on one shard.
std::unique_ptr<Loader> make_eval_loader(const TrainConfig& config);

}  // namespace parity::trainer
