#include "pytorch/torch_types.hpp"

#include <array>
#include <string>

#include "parity/core/error.hpp"

namespace parity::importers {
namespace {

// torch/storage.py: _dtype_to_storage_type_map() and _new_dtypes().
constexpr std::array<TorchScalarType, 25> kTypes{{
    {"float64", "DoubleStorage", 8, DType::kFloat64},
    {"float32", "FloatStorage", 4, DType::kFloat32},
    {"float16", "HalfStorage", 2, DType::kFloat16},
    {"bfloat16", "BFloat16Storage", 2, DType::kBFloat16},
    {"int64", "LongStorage", 8, DType::kInt64},
    {"int32", "IntStorage", 4, DType::kInt32},
    {"int16", "ShortStorage", 2, DType::kInt16},
    {"int8", "CharStorage", 1, DType::kInt8},
    {"uint8", "ByteStorage", 1, DType::kUInt8},
    {"bool", "BoolStorage", 1, DType::kBool},
    {"complex32", "", 4, std::nullopt},
    {"complex64", "ComplexFloatStorage", 8, std::nullopt},
    {"complex128", "ComplexDoubleStorage", 16, std::nullopt},
    {"qint8", "QInt8Storage", 1, std::nullopt},
    {"quint8", "QUInt8Storage", 1, std::nullopt},
    {"qint32", "QInt32Storage", 4, std::nullopt},
    {"quint4x2", "QUInt4x2Storage", 1, std::nullopt},
    {"quint2x4", "QUInt2x4Storage", 1, std::nullopt},
    {"uint16", "", 2, std::nullopt},
    {"uint32", "", 4, std::nullopt},
    {"uint64", "", 8, std::nullopt},
    {"float8_e5m2", "", 1, std::nullopt},
    {"float8_e4m3fn", "", 1, std::nullopt},
    {"float8_e5m2fnuz", "", 1, std::nullopt},
    {"float8_e4m3fnuz", "", 1, std::nullopt},
}};

}  // namespace

std::span<const TorchScalarType> torch_scalar_types() { return kTypes; }

const TorchScalarType* find_torch_dtype(std::string_view name) {
  for (const TorchScalarType& type : kTypes)
    if (type.name == name) return &type;
  return nullptr;
}

const TorchScalarType* find_torch_storage_class(std::string_view storage_class) {
  if (storage_class.empty()) return nullptr;
  for (const TorchScalarType& type : kTypes)
    if (type.storage_class == storage_class) return &type;
  return nullptr;
}

const TorchScalarType& torch_scalar_type_of(DType dtype) {
  for (const TorchScalarType& type : kTypes)
    if (type.dtype == dtype) return type;
  throw Error("no PyTorch type for " + std::string(dtype_name(dtype)), "torch types");
}

}  // namespace parity::importers
