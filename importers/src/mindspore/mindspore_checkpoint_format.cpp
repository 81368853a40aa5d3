#include "mindspore/mindspore_checkpoint_format.hpp"

#include <algorithm>
#include <array>

namespace parity::importers::mindspore {
namespace {

struct TensorTypeName {
  DType dtype;
  std::string_view name;
};
// str(mindspore dtype), as save_checkpoint stores it and load_checkpoint's
// tensor_to_ms_type reads it.
constexpr std::array<TensorTypeName, 10> kTensorTypes{{
    {DType::kFloat64, "Float64"},
    {DType::kFloat32, "Float32"},
    {DType::kFloat16, "Float16"},
    {DType::kBFloat16, "BFloat16"},
    {DType::kInt64, "Int64"},
    {DType::kInt32, "Int32"},
    {DType::kInt16, "Int16"},
    {DType::kInt8, "Int8"},
    {DType::kUInt8, "UInt8"},
    {DType::kBool, "Bool"},
}};

constexpr std::array<std::string_view, 4> kUnsupportedTensorTypes{"UInt16", "UInt32", "UInt64",
                                                                  "Int4"};

struct EncryptionMarker {
  std::uint32_t marker;
  std::string_view mode;
};
// GCM_MAGIC_NUM, CBC_MAGIC_NUM and SM4_CBC_MAGIC_NUM of mindspore/core/utils/crypto.h,
// stored little-endian (MindSpore before 2.0 used the first one for every mode).
constexpr std::array<EncryptionMarker, 3> kEncryptionMarkers{{
    {0x7F3A5ED8u, "AES-GCM"},
    {0x7F3A5ED9u, "AES-CBC"},
    {0x7F3A5EDAu, "SM4-CBC"},
}};

}  // namespace

std::string_view tensor_type_of(DType dtype) {
  for (const auto& entry : kTensorTypes)
    if (entry.dtype == dtype) return entry.name;
  return "?";
}

std::optional<DType> dtype_of_tensor_type(std::string_view tensor_type) {
  for (const auto& entry : kTensorTypes)
    if (entry.name == tensor_type) return entry.dtype;
  return std::nullopt;
}

bool is_unsupported_tensor_type(std::string_view tensor_type) {
  return std::find(kUnsupportedTensorTypes.begin(), kUnsupportedTensorTypes.end(), tensor_type) !=
         kUnsupportedTensorTypes.end();
}

std::string supported_tensor_types() {
  std::string text;
  for (const auto& entry : kTensorTypes) {
    if (!text.empty()) text += ", ";
    text += entry.name;
  }
  return text;
}

std::optional<std::string_view> encryption_mode_of_marker(std::uint32_t first_four_bytes_le) {
  for (const auto& entry : kEncryptionMarkers)
    if (entry.marker == first_four_bytes_le) return entry.mode;
  return std::nullopt;
}

}  // namespace parity::importers::mindspore
