#include "parity/trainer/debug/fixed_batch.hpp"

#include <cmath>

#include "parity/core/error.hpp"
#include "parity/importers/tensor_source.hpp"

namespace parity::trainer {
namespace {

importers::NamedTensor read_single(const std::filesystem::path& path) {
  const auto source = importers::open_tensor_file(path);
  if (source->entries().size() != 1)
    throw Error("the file holds " + std::to_string(source->entries().size()) + " tensors, not one",
                path.string(), "give one .npy file per argument");
  return source->read(source->entries().front().name);
}

}  // namespace

Batch read_fixed_batch(const std::filesystem::path& images_path,
                       const std::filesystem::path& labels_path, std::int64_t classes) {
  const importers::NamedTensor images = read_single(images_path);
  if (images.dtype != DType::kFloat32 || images.shape.size() != 4 || images.shape[1] != 3 ||
      images.shape[2] != images.shape[3] || images.shape[0] < 1)
    throw Error("the images are " + std::string(dtype_name(images.dtype)) + " " +
                    importers::shape_to_string(images.shape) + ", not float32 [N, 3, H, H]",
                images_path.string(), "save a float32 NCHW batch of square images");
  const importers::NamedTensor labels = read_single(labels_path);
  if (dtype_is_floating(labels.dtype) || labels.shape.size() != 1 || labels.shape[0] != images.shape[0])
    throw Error("the labels are " + std::string(dtype_name(labels.dtype)) + " " +
                    importers::shape_to_string(labels.shape) + ", not " +
                    std::to_string(images.shape[0]) + " integers",
                labels_path.string(), "one integer class per image");
  Batch batch;
  batch.n = images.shape[0];
  batch.c = images.shape[1];
  batch.h = images.shape[2];
  batch.w = images.shape[3];
  batch.images = images.values<float>();
  for (const double label : labels.to_double()) {
    if (label < 0 || label >= static_cast<double>(classes))
      throw Error("label " + std::to_string(static_cast<std::int64_t>(label)) + " is outside [0, " +
                      std::to_string(classes) + ")",
                  labels_path.string(), "set class_num to the number of classes");
    batch.labels.push_back(static_cast<std::int32_t>(label));
  }
  return batch;
}

}  // namespace parity::trainer
