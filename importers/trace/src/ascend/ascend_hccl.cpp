#include "ascend/ascend_hccl.hpp"

#include <utility>

#include "chrome/chrome_collectives.hpp"

namespace parity::importers::trace {

std::optional<profiler::CollectiveOp> hccl_collective_op(std::string_view name) {
  constexpr std::string_view kPrefix = "hcom_";
  if (!name.starts_with(kPrefix)) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  return collective_op_of(name.substr(0, name.find('_')));
}

std::int64_t hccl_element_bytes(std::string_view type) {
  static const std::pair<std::string_view, std::int64_t> kSizes[] = {
      {"INT8", 1},   {"UINT8", 1}, {"INT16", 2},   {"UINT16", 2}, {"FP16", 2},
      {"BF16", 2},   {"INT32", 4}, {"UINT32", 4},  {"FP32", 4},   {"INT64", 8},
      {"UINT64", 8}, {"FP64", 8},  {"INT128", 16},
  };
  for (const auto& [name, bytes] : kSizes)
    if (type == name) return bytes;
  return 0;
}

}  // namespace parity::importers::trace
