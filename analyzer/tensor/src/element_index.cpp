#include "parity/analyzer/element_index.hpp"

#include "parity/importers/named_tensor.hpp"

namespace parity::analyzer {

std::vector<std::int64_t> multi_index(std::int64_t index, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> position(shape.size(), 0);
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] <= 0) break;
    position[d] = index % shape[d];
    index /= shape[d];
  }
  return position;
}

std::string element_index(std::int64_t index, const std::vector<std::int64_t>& shape) {
  return importers::shape_to_string(multi_index(index, shape));
}

}  // namespace parity::analyzer
