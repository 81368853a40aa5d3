#include "parity/trainer/data/image_set.hpp"

#include <zlib.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include "parity/core/error.hpp"

namespace parity::trainer {
namespace {

namespace fs = std::filesystem;

// Reads a file whole, inflating it if it is gzip (zlib reads raw files as they are).
std::vector<std::uint8_t> read_maybe_gzip(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw Error("dataset file not found", path.string(), "check data_path in the config");
  const std::unique_ptr<gzFile_s, decltype(&gzclose)> file(gzopen(path.c_str(), "rb"), gzclose);
  if (!file) throw Error("cannot open dataset file", path.string());
  std::vector<std::uint8_t> bytes;
  std::array<std::uint8_t, 1 << 16> chunk;
  while (true) {
    const int read = gzread(file.get(), chunk.data(), static_cast<unsigned>(chunk.size()));
    if (read < 0) {
      int code = 0;
      throw Error(std::string("cannot decompress: ") + gzerror(file.get(), &code), path.string(),
                  "the file is damaged; reinstall the dataset");
    }
    if (read == 0) break;
    bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + read);
  }
  // zlib reports a gzip stream cut short only as an early end of file.
  int code = Z_OK;
  gzerror(file.get(), &code);
  if (code != Z_OK && code != Z_STREAM_END)
    throw Error("cannot decompress: the gzip stream is truncated or damaged", path.string(),
                "the file is damaged; reinstall the dataset");
  return bytes;
}

std::uint32_t big_endian_u32(const std::vector<std::uint8_t>& bytes, std::size_t offset) {
  return (std::uint32_t{bytes[offset]} << 24) | (std::uint32_t{bytes[offset + 1]} << 16) |
         (std::uint32_t{bytes[offset + 2]} << 8) | std::uint32_t{bytes[offset + 3]};
}

// Checks an IDX header and returns its dimensions.
std::vector<std::uint32_t> idx_dimensions(const std::vector<std::uint8_t>& bytes, const fs::path& path,
                                          std::uint32_t magic, std::size_t rank) {
  if (bytes.size() < 4)
    throw Error("not an IDX file: " + std::to_string(bytes.size()) + " bytes", path.string());
  if (big_endian_u32(bytes, 0) != magic) {
    char text[80];
    std::snprintf(text, sizeof text, "not an IDX file of this kind: magic 0x%08x, expected 0x%08x",
                  big_endian_u32(bytes, 0), magic);
    throw Error(text, path.string(), "pass the images and labels files in that order");
  }
  const std::size_t header = 4 + 4 * rank;
  if (bytes.size() < header)
    throw Error("truncated IDX header: " + std::to_string(bytes.size()) + " bytes", path.string());
  std::vector<std::uint32_t> dims;
  std::size_t expected = header;
  std::size_t elements = 1;
  for (std::size_t i = 0; i < rank; ++i) {
    dims.push_back(big_endian_u32(bytes, 4 + 4 * i));
    elements *= dims.back();
  }
  expected += elements;
  if (bytes.size() != expected)
    throw Error("IDX data size does not match its header: " + std::to_string(bytes.size()) +
                    " bytes, header says " + std::to_string(expected),
                path.string(), "the file is truncated or damaged");
  return dims;
}

}  // namespace

ImageSet read_idx(const fs::path& images_path, const fs::path& labels_path, std::int64_t class_count) {
  const auto images = read_maybe_gzip(images_path);
  const auto labels = read_maybe_gzip(labels_path);
  const auto image_dims = idx_dimensions(images, images_path, 0x00000803, 3);
  const auto label_dims = idx_dimensions(labels, labels_path, 0x00000801, 1);
  if (image_dims[0] != label_dims[0])
    throw Error("image and label counts differ: " + std::to_string(image_dims[0]) + " images, " +
                    std::to_string(label_dims[0]) + " labels",
                images_path.string() + ", " + labels_path.string());
  ImageSet set;
  set.count = image_dims[0];
  set.height = image_dims[1];
  set.width = image_dims[2];
  set.channels = 1;
  set.class_count = class_count;
  set.pixels.assign(images.begin() + 16, images.end());
  set.labels.reserve(static_cast<std::size_t>(set.count));
  for (std::int64_t i = 0; i < set.count; ++i) {
    const std::uint8_t label = labels[8 + static_cast<std::size_t>(i)];
    if (label >= class_count)
      throw Error("label " + std::to_string(label) + " of image " + std::to_string(i) +
                      " is not below the class count " + std::to_string(class_count),
                  labels_path.string());
    set.labels.push_back(label);
  }
  return set;
}

ImageSet read_fashion_mnist(const fs::path& folder, Split split) {
  const std::string prefix = split == Split::kTrain ? "train" : "t10k";
  return read_idx(folder / (prefix + "-images-idx3-ubyte.gz"),
                  folder / (prefix + "-labels-idx1-ubyte.gz"), 10);
}

ImageSet read_cifar10(const fs::path& folder, Split split) {
  constexpr std::int64_t kSide = 32, kPlane = kSide * kSide, kRecord = 1 + 3 * kPlane;
  std::vector<fs::path> files;
  if (split == Split::kTrain) {
    for (int batch = 1; batch <= 5; ++batch)
      files.push_back(folder / ("data_batch_" + std::to_string(batch) + ".bin"));
  } else {
    files.push_back(folder / "test_batch.bin");
  }
  ImageSet set;
  set.height = set.width = kSide;
  set.channels = 3;
  set.class_count = 10;
  for (const auto& path : files) {
    const auto bytes = read_maybe_gzip(path);
    if (bytes.empty() || bytes.size() % kRecord != 0)
      throw Error("size " + std::to_string(bytes.size()) + " is not a whole number of " +
                      std::to_string(kRecord) + "-byte CIFAR-10 records",
                  path.string(), "the file is truncated or not a CIFAR-10 binary batch");
    const auto records = static_cast<std::int64_t>(bytes.size()) / kRecord;
    set.pixels.resize(static_cast<std::size_t>((set.count + records) * 3 * kPlane));
    for (std::int64_t r = 0; r < records; ++r) {
      const std::uint8_t* record = bytes.data() + r * kRecord;
      if (record[0] >= 10)
        throw Error("label " + std::to_string(record[0]) + " of record " + std::to_string(r) +
                        " is not a CIFAR-10 class",
                    path.string() + ", offset " + std::to_string(r * kRecord));
      set.labels.push_back(record[0]);
      // Planes (CHW) to interleaved pixels (HWC).
      std::uint8_t* out = set.pixels.data() + (set.count + r) * 3 * kPlane;
      for (std::int64_t p = 0; p < kPlane; ++p)
        for (std::int64_t c = 0; c < 3; ++c) out[p * 3 + c] = record[1 + c * kPlane + p];
    }
    set.count += records;
  }
  return set;
}

}  // namespace parity::trainer
