// HCCL's names for what its ops do, as CANN's trace_view.json gives them:
// the op "hcom_allReduce__586_0_1" (hcom_<collective>_<id>...) and the
// element types "FP32", "BF16", "INT8"...
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "parity/profiler/trace_schema.hpp"

namespace parity::importers::trace {

// "hcom_allReduce__586_0_1" -> kAllReduce; nullopt for another name.
std::optional<profiler::CollectiveOp> hccl_collective_op(std::string_view name);

// Bytes of one element of an HCCL data type ("FP32" 4, "BF16" 2); 0 if unknown.
std::int64_t hccl_element_bytes(std::string_view type);

}  // namespace parity::importers::trace
