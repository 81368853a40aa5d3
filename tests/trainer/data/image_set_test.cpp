#include <catch2/catch.hpp>

#include <zlib.h>

#include <fstream>
#include <map>
#include <numeric>

#include "parity/core/error.hpp"
#include "parity/trainer/data/image_set.hpp"
#include "temp_dir.hpp"

using namespace parity::trainer;
namespace fs = std::filesystem;

namespace {

const fs::path kFashionMnist = "/usr/share/datasets/fashion-mnist";

std::vector<std::uint8_t> idx_file(std::uint32_t magic, std::vector<std::uint32_t> dims,
                                   const std::vector<std::uint8_t>& data) {
  std::vector<std::uint8_t> bytes;
  const auto put = [&](std::uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<std::uint8_t>(v >> shift));
  };
  put(magic);
  for (const auto d : dims) put(d);
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

void write(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
}

void write_gzip(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  gzFile file = gzopen(path.c_str(), "wb");
  REQUIRE(file);
  REQUIRE(gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size())) == static_cast<int>(bytes.size()));
  gzclose(file);
}

// A CIFAR-10 batch whose pixel values encode (record, channel, position).
std::vector<std::uint8_t> cifar_batch(int records, int first_label) {
  std::vector<std::uint8_t> bytes;
  for (int r = 0; r < records; ++r) {
    bytes.push_back(static_cast<std::uint8_t>((first_label + r) % 10));
    for (int c = 0; c < 3; ++c)
      for (int p = 0; p < 1024; ++p) bytes.push_back(static_cast<std::uint8_t>(r * 7 + c * 50 + p % 40));
  }
  return bytes;
}

}  // namespace

TEST_CASE("Fashion-MNIST from Debian's package reads whole and exact", "[unit]") {
  INFO("scripts/setup.sh installs Debian's dataset-fashion-mnist");
  REQUIRE(fs::exists(kFashionMnist));
  const ImageSet train = read_fashion_mnist(kFashionMnist, Split::kTrain);
  CHECK(train.count == 60000);
  CHECK(train.height == 28);
  CHECK(train.width == 28);
  CHECK(train.channels == 1);
  // Ground truth read with Python's gzip module, independently of our reader.
  CHECK(std::vector<int>(train.labels.begin(), train.labels.begin() + 5) == std::vector<int>{9, 0, 0, 3, 0});
  CHECK(std::accumulate(train.image(0), train.image(1), 0LL) == 76247);
  CHECK(std::accumulate(train.pixels.begin(), train.pixels.end(), 0LL) == 3431114169LL);
  std::map<int, int> per_class;
  for (const auto label : train.labels) ++per_class[label];
  CHECK(per_class.size() == 10);
  for (const auto& [label, count] : per_class) CHECK(count == 6000);

  const ImageSet test = read_fashion_mnist(kFashionMnist, Split::kTest);
  CHECK(test.count == 10000);
  CHECK(std::accumulate(test.image(0), test.image(1), 0LL) == 33456);
  CHECK(std::accumulate(test.pixels.begin(), test.pixels.end(), 0LL) == 573469082LL);
}

TEST_CASE("raw and gzip IDX files read the same", "[unit]") {
  TempDir dir;
  const std::vector<std::uint8_t> pixels{1, 2, 3, 4, 5, 6, 7, 8};
  write(dir / "images", idx_file(0x803, {2, 2, 2}, pixels));
  write_gzip(dir / "labels.gz", idx_file(0x801, {2}, {4, 1}));
  const ImageSet set = read_idx(dir / "images", dir / "labels.gz", 5);
  CHECK(set.count == 2);
  CHECK(set.pixels == pixels);
  CHECK(set.labels == std::vector<std::int32_t>{4, 1});
  CHECK(set.image(1)[0] == 5);
}

TEST_CASE("CIFAR-10 batches become interleaved images with their labels", "[unit]") {
  TempDir dir;
  for (int batch = 1; batch <= 5; ++batch)
    write(dir / ("data_batch_" + std::to_string(batch) + ".bin"), cifar_batch(3, batch));
  write(dir / "test_batch.bin", cifar_batch(2, 0));
  const ImageSet train = read_cifar10(dir.path(), Split::kTrain);
  REQUIRE(train.count == 15);
  CHECK(train.channels == 3);
  CHECK(train.labels[0] == 1);
  CHECK(train.labels[3] == 2);  // first record of the second batch
  // Record 1 of batch 1, pixel 5, channel 2: 1*7 + 2*50 + 5.
  CHECK(train.image(1)[5 * 3 + 2] == 1 * 7 + 2 * 50 + 5);
  const ImageSet test = read_cifar10(dir.path(), Split::kTest);
  CHECK(test.count == 2);
}

TEST_CASE("damaged dataset files are refused naming the file and the fault", "[unit]") {
  TempDir dir;
  const std::vector<std::uint8_t> pixels(2 * 4 * 4, 7);
  write(dir / "images", idx_file(0x803, {2, 4, 4}, pixels));
  write(dir / "labels", idx_file(0x801, {2}, {0, 1}));

  CHECK_THROWS_WITH(read_idx(dir / "labels", dir / "images", 10),
                    Catch::Contains("magic 0x00000801, expected 0x00000803"));
  write(dir / "short", idx_file(0x803, {3, 4, 4}, pixels));
  CHECK_THROWS_WITH(read_idx(dir / "short", dir / "labels", 10),
                    Catch::Contains("does not match its header") && Catch::Contains("short"));
  write(dir / "three_labels", idx_file(0x801, {3}, {0, 1, 2}));
  write(dir / "three_images", idx_file(0x803, {3, 4, 4}, std::vector<std::uint8_t>(48, 1)));
  CHECK_THROWS_WITH(read_idx(dir / "images", dir / "three_labels", 10),
                    Catch::Contains("2 images, 3 labels"));
  write(dir / "big_label", idx_file(0x801, {2}, {0, 12}));
  CHECK_THROWS_WITH(read_idx(dir / "images", dir / "big_label", 10),
                    Catch::Contains("label 12 of image 1"));
  CHECK_THROWS_WITH(read_idx(dir / "missing", dir / "labels", 10), Catch::Contains("not found"));

  // A gzip file cut in half.
  std::vector<std::uint8_t> compressed;
  write_gzip(dir / "whole.gz", idx_file(0x803, {2, 4, 4}, pixels));
  {
    std::ifstream in(dir / "whole.gz", std::ios::binary);
    compressed.assign(std::istreambuf_iterator<char>(in), {});
  }
  compressed.resize(compressed.size() / 2);
  write(dir / "cut.gz", compressed);
  CHECK_THROWS_WITH(read_idx(dir / "cut.gz", dir / "labels", 10),
                    Catch::Contains("truncated") && Catch::Contains("cut.gz"));

  write(dir / "test_batch.bin", std::vector<std::uint8_t>(3073 + 100, 0));
  CHECK_THROWS_WITH(read_cifar10(dir.path(), Split::kTest), Catch::Contains("not a whole number"));
  auto bad = cifar_batch(2, 0);
  bad[3073] = 11;
  write(dir / "test_batch.bin", bad);
  CHECK_THROWS_WITH(read_cifar10(dir.path(), Split::kTest),
                    Catch::Contains("label 11 of record 1") && Catch::Contains("offset 3073"));
}
