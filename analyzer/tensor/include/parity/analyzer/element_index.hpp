// Where an element sits in a tensor: the C-order multi-index of a flat
// element index, as numbers (JSON) and as text (tables), for the reports of
// `parity diff`, `parity compare` and `parity nan-scan`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace parity::analyzer {

// The C-order multi-index of flat element `index` of `shape`, and as text:
// "[3, 1, 0, 2]".
std::vector<std::int64_t> multi_index(std::int64_t index, const std::vector<std::int64_t>& shape);
std::string element_index(std::int64_t index, const std::vector<std::int64_t>& shape);

}  // namespace parity::analyzer
