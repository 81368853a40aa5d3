#include "parity/importers/tensor_source.hpp"

namespace parity::importers {

std::int64_t TensorEntry::element_count() const {
  const auto count = checked_element_count(shape);
  if (!count) throw Error("tensor '" + name + "' has an invalid shape " + shape_to_string(shape), name);
  return *count;
}

std::int64_t TensorEntry::byte_size() const {
  const auto bytes = checked_byte_size(dtype, shape);
  if (!bytes) throw Error("tensor '" + name + "' has an invalid shape " + shape_to_string(shape), name);
  return *bytes;
}

const TensorEntry* TensorSource::find(std::string_view name) const {
  for (const TensorEntry& entry : entries())
    if (entry.name == name) return &entry;
  return nullptr;
}

}  // namespace parity::importers
