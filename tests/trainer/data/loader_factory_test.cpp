// The loaders a TrainConfig makes: datasets, transforms and options.
#include "parity/trainer/data/loader_factory.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>

#include "parity/core/error.hpp"
#include "parity/trainer/data/jpeg.hpp"
#include "reference.hpp"
#include "temp_dir.hpp"

using namespace parity::trainer;
namespace fs = std::filesystem;

namespace {

const std::string kFashionMnist = "/usr/share/datasets/fashion-mnist";

TrainConfig config_for(DatasetKind dataset, const std::string& data_path = {}) {
  TrainConfig config;
  config.dataset = dataset;
  config.data_path = data_path;
  config.batch_size = 4;
  config.num_workers = 2;
  config.prefetch = 2;
  return config;
}

// A CIFAR-10 binary folder with `records` records per file; pixel bytes
// encode (file, record, channel, position).
void write_cifar(const fs::path& folder, int records) {
  fs::create_directories(folder);
  std::vector<std::string> files = {"test_batch.bin"};
  for (int b = 1; b <= 5; ++b) files.push_back("data_batch_" + std::to_string(b) + ".bin");
  for (std::size_t f = 0; f < files.size(); ++f) {
    std::ofstream out(folder / files[f], std::ios::binary);
    for (int r = 0; r < records; ++r) {
      out.put(static_cast<char>((f + static_cast<std::size_t>(r)) % 10));
      for (int c = 0; c < 3; ++c)
        for (int p = 0; p < 1024; ++p)
          out.put(static_cast<char>((static_cast<int>(f) * 31 + r * 17 + c * 50 + p) % 256));
    }
  }
}

std::string describe(const TrainConfig& config, Split split) {
  return make_transforms(config, split).describe();
}

}  // namespace

TEST_CASE("the Fashion-MNIST eval loader gives torchvision's batches", "[unit]") {
  TempDir dir;
  const Reference ref = run_reference("fashion_eval", dir.path(), {kFashionMnist, "4"});
  TrainConfig config = config_for(DatasetKind::kFashionMnist, kFashionMnist);
  const auto loader = make_eval_loader(config);
  CHECK(loader->batches_per_epoch() == 2500);  // 10000 test images, all kept
  loader->start_epoch(0);
  const auto batch = loader->next();
  REQUIRE(batch);
  CHECK(std::vector<std::int64_t>{batch->n, batch->c, batch->h, batch->w} == ref.shape("images"));
  std::vector<std::string> labels;
  for (const auto label : batch->labels) labels.push_back(std::to_string(label));
  CHECK(labels == ref.values("labels"));
  // Padding, copying and normalizing: the same float32 operations, exact.
  CHECK(max_abs_difference(batch->images, ref.floats("images")) == 0.0);
}

TEST_CASE("the Fashion-MNIST train loader shuffles, augments and shards", "[unit]") {
  TrainConfig config = config_for(DatasetKind::kFashionMnist, kFashionMnist);
  config.batch_size = 128;
  const auto loader = make_train_loader(config);
  CHECK(loader->batches_per_epoch() == 468);  // 60000 / 128, the last partial batch dropped
  loader->start_epoch(0);
  const auto batch = loader->next();
  REQUIRE(batch);
  CHECK(std::vector<std::int64_t>{batch->n, batch->c, batch->h, batch->w} ==
        std::vector<std::int64_t>{128, 3, 32, 32});
  const float low = (0.0f - 0.2860f) / 0.3530f, high = (1.0f - 0.2860f) / 0.3530f;
  const auto [min, max] = std::minmax_element(batch->images.begin(), batch->images.end());
  CHECK(*min == low);  // zero padding and black background
  CHECK(*max <= high);
  // Gray copied to three channels.
  CHECK(std::equal(batch->images.begin(), batch->images.begin() + 1024,
                   batch->images.begin() + 1024));
  for (const auto label : batch->labels) CHECK((label >= 0 && label < 10));
  // The same config makes the same first batch; another seed another one.
  const auto again = make_train_loader(config);
  again->start_epoch(0);
  CHECK(again->next()->images == batch->images);
  config.seed = 2;
  const auto other = make_train_loader(config);
  other->start_epoch(0);
  CHECK(other->next()->labels != batch->labels);

  // Upscaled for the ImageNet stem: the same recipe at twice the size.
  config.seed = 1;
  config.resize_image_size = 56;
  config.train_image_size = config.eval_image_size = 64;
  CHECK(make_transforms(config, Split::kTrain).describe() ==
        "Compose(ToTensor(), Resize(size=56, interpolation=bilinear, antialias=False), "
        "CenterCrop(size=64), RandomCrop(size=64, padding=8), RandomHorizontalFlip(p=0.5), "
        "Normalize(mean=[0.286], std=[0.353]), GrayToRgb())");
  const auto upscaled = make_train_loader(config);
  upscaled->start_epoch(0);
  CHECK(upscaled->next()->h == 64);
  CHECK_THAT(make_transforms(config, Split::kTest).describe(),
             Catch::StartsWith("Compose(ToTensor(), Resize(size=56") &&
                 Catch::Contains("CenterCrop(size=64)") && !Catch::Contains("RandomCrop"));
  config.resize_image_size = 0;
  config.train_image_size = config.eval_image_size = 32;

  const auto shard = make_train_loader(config, 2, 1);
  CHECK(shard->samples_per_epoch() == 30000);
  CHECK(shard->batches_per_epoch() == 234);
  CHECK(shard->options().shuffle);
  CHECK(shard->options().drop_last);
}

TEST_CASE("CIFAR-10 loaders read the binary batches and normalize per channel", "[unit]") {
  TempDir dir;
  write_cifar(dir.path(), 3);
  TrainConfig config = config_for(DatasetKind::kCifar10, dir.path().string());
  const auto train = make_train_loader(config);
  CHECK(train->samples_per_epoch() == 15);
  CHECK(train->batches_per_epoch() == 3);
  train->start_epoch(0);
  const auto batch = train->next();
  CHECK(std::vector<std::int64_t>{batch->n, batch->c, batch->h, batch->w} ==
        std::vector<std::int64_t>{4, 3, 32, 32});

  const auto eval = make_eval_loader(config);
  eval->start_epoch(0);
  const auto test = eval->next();
  REQUIRE(test);
  CHECK(test->n == 3);  // test_batch.bin, in order, nothing dropped
  CHECK(test->labels == std::vector<std::int32_t>{0, 1, 2});
  const float mean[] = {0.4914f, 0.4822f, 0.4465f}, std[] = {0.2470f, 0.2435f, 0.2616f};
  for (int c = 0; c < 3; ++c)
    for (int p : {0, 5, 1023}) {
      const auto byte = static_cast<float>((17 + c * 50 + p) % 256);  // record 1 of file 0
      CHECK(test->images[static_cast<std::size_t>(3072 + c * 1024 + p)] ==
            (byte / 255.0f - mean[c]) / std[c]);
    }

  config.train_image_size = 40;  // padded to 40, then cropped at random
  const auto larger = make_train_loader(config);
  larger->start_epoch(0);
  CHECK(larger->next()->h == 40);
}

TEST_CASE("ImageFolder loaders read train/ and val/ at their image sizes", "[unit]") {
  const auto& jpegs = pil_jpeg_reference();
  TempDir dir;
  for (const std::string split : {"train", "val"})
    for (const std::string cls : {"n01", "n02"}) {
      fs::create_directories(dir / split / cls);
      for (const std::string name : {"rgb420", "gray", "cmyk"})
        fs::copy_file(jpegs.dir / (name + ".jpg"), dir.path() / split / cls / (name + ".JPEG"));
    }
  TrainConfig config = config_for(DatasetKind::kImageFolder, dir.path().string());
  config.train_image_size = 24;
  config.eval_image_size = 24;
  config.batch_size = 6;
  const auto train = make_train_loader(config);
  CHECK(train->batches_per_epoch() == 1);
  train->start_epoch(0);
  const auto batch = train->next();
  CHECK(std::vector<std::int64_t>{batch->n, batch->c, batch->h, batch->w} ==
        std::vector<std::int64_t>{6, 3, 24, 24});

  const auto eval = make_eval_loader(config);
  eval->start_epoch(0);
  const auto val = eval->next();
  CHECK(val->labels == std::vector<std::int32_t>{0, 0, 0, 1, 1, 1});
  // The first val image (cmyk.JPEG sorts first) through the documented transforms.
  Rng unused(0);
  const FloatImage expected = make_transforms(config, Split::kTest)
                                  .apply(read_jpeg(dir / "val" / "n01" / "cmyk.JPEG"), unused);
  CHECK(std::equal(expected.data.begin(), expected.data.end(), val->images.begin()));

  config.class_num = 1;
  CHECK_THROWS_WITH(make_train_loader(config), Catch::Contains("more than class_num"));
  config.class_num = 1001;  // MindSpore's ImageNet head: allowed
  CHECK(make_eval_loader(config)->dataset().class_count() == 2);
  config.data_path = (dir / "train").string();  // no val/ beside it
  CHECK_THROWS_WITH(make_eval_loader(config), Catch::Contains("no evaluation images"));
  config.eval_data_path = (dir / "val").string();
  CHECK(make_eval_loader(config)->dataset().size() == 6);
}

TEST_CASE("the synthetic dataset has the configured size, shape and classes", "[unit]") {
  TrainConfig config = config_for(DatasetKind::kSynthetic);
  config.synthetic_size = 50;
  config.train_image_size = 16;
  config.eval_image_size = 8;
  config.class_num = 7;
  config.batch_size = 8;
  const auto train = make_train_loader(config);
  const auto eval = make_eval_loader(config);
  CHECK(train->batches_per_epoch() == 6);
  CHECK(eval->batches_per_epoch() == 7);
  train->start_epoch(0);
  eval->start_epoch(0);
  std::int64_t seen = 0;
  while (auto batch = train->next()) {
    CHECK(std::vector<std::int64_t>{batch->c, batch->h, batch->w} ==
          std::vector<std::int64_t>{3, 16, 16});
    for (const auto label : batch->labels) CHECK((label >= 0 && label < 7));
    seen += batch->n;
  }
  CHECK(seen == 48);
  CHECK(eval->next()->h == 8);
  // Uniform pixels normalized by their own mean and deviation.
  const auto batch = (train->start_epoch(1), train->next());
  double sum = 0, squares = 0;
  for (const float v : batch->images) sum += v, squares += double{v} * v;
  const double n = static_cast<double>(batch->images.size());
  CHECK(std::abs(sum / n) < 0.05);
  CHECK(std::abs(squares / n - 1.0) < 0.05);
}

TEST_CASE("each dataset gets the transforms its header documents", "[unit]") {
  TrainConfig config;
  config.train_image_size = 32;
  config.eval_image_size = 32;
  config.dataset = DatasetKind::kFashionMnist;
  CHECK(describe(config, Split::kTrain) ==
        "Compose(ToTensor(), CenterCrop(size=32), RandomCrop(size=32, padding=4), "
        "RandomHorizontalFlip(p=0.5), Normalize(mean=[0.286], std=[0.353]), GrayToRgb())");
  CHECK(describe(config, Split::kTest) ==
        "Compose(ToTensor(), CenterCrop(size=32), Normalize(mean=[0.286], std=[0.353]), "
        "GrayToRgb())");
  config.dataset = DatasetKind::kCifar10;
  CHECK(describe(config, Split::kTrain) ==
        "Compose(ToTensor(), RandomCrop(size=32, padding=4), RandomHorizontalFlip(p=0.5), "
        "Normalize(mean=[0.4914, 0.4822, 0.4465], std=[0.247, 0.2435, 0.2616]))");
  CHECK(describe(config, Split::kTest) ==
        "Compose(ToTensor(), Normalize(mean=[0.4914, 0.4822, 0.4465], std=[0.247, 0.2435, "
        "0.2616]))");
  config.dataset = DatasetKind::kImageFolder;
  config.train_image_size = 224;
  config.eval_image_size = 224;
  CHECK(describe(config, Split::kTrain) ==
        "Compose(ToTensor(), RandomResizedCrop(size=224, scale=(0.08, 1), ratio=(0.75, 1.333), "
        "interpolation=bilinear, antialias=False), RandomHorizontalFlip(p=0.5), "
        "Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]))");
  CHECK(describe(config, Split::kTest) ==
        "Compose(ToTensor(), Resize(size=256, interpolation=bilinear, antialias=False), "
        "CenterCrop(size=224), Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]))");
  config.eval_image_size = 288;  // round(288 * 256 / 224) = 329
  CHECK_THAT(describe(config, Split::kTest), Catch::Contains("Resize(size=329"));
  config.dataset = DatasetKind::kSynthetic;
  CHECK(describe(config, Split::kTrain) ==
        "Compose(ToTensor(), RandomHorizontalFlip(p=0.5), Normalize(mean=[0.5], std=[0.2898]))");
  // A dataset of no other name never reaches the loaders: the config refuses it.
  CHECK_THROWS_AS(load_train_config({}, {"dataset=mnist"}), parity::Error);
}

TEST_CASE("augment: false trains on the images as evaluation sees them", "[unit]") {
  TrainConfig config;
  config.augment = false;
  for (const DatasetKind dataset : {DatasetKind::kFashionMnist, DatasetKind::kCifar10,
                                    DatasetKind::kImageFolder, DatasetKind::kSynthetic}) {
    INFO(name_of(dataset));
    config.dataset = dataset;
    config.train_image_size = config.eval_image_size =
        dataset == DatasetKind::kImageFolder ? 224 : 32;
    const std::string train = describe(config, Split::kTrain);
    CHECK(train == describe(config, Split::kTest));
    CHECK_THAT(train, !Catch::Contains("Random"));
  }
}
