// PyTorch's element types as its pickles name them: the dtype globals
// (torch.float32) and the legacy typed storage classes (torch.FloatStorage)
// whose persistent ids carry a storage's element type. One table, read by the
// pickle allow-list and by the checkpoint readers.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "parity/core/dtype.hpp"

namespace parity::importers {

struct TorchScalarType {
  std::string_view name;           // torch's dtype name: "float32", "complex64", "qint8"
  std::string_view storage_class;  // "FloatStorage"; empty for dtypes that have none
  std::size_t element_size;
  std::optional<DType> dtype;  // nullopt: a dtype Parity does not hold (complex, quantized, ...)
};

std::span<const TorchScalarType> torch_scalar_types();
const TorchScalarType* find_torch_dtype(std::string_view name);
const TorchScalarType* find_torch_storage_class(std::string_view storage_class);
// The type PyTorch holds `dtype` as (every DType has one).
const TorchScalarType& torch_scalar_type_of(DType dtype);

// The storage class without an element type (torch 2 pickles it, with the
// tensor's dtype passed separately); its element is a byte.
inline constexpr std::string_view kTorchUntypedStorageModule = "torch.storage";
inline constexpr std::string_view kTorchUntypedStorageClass = "UntypedStorage";

}  // namespace parity::importers
