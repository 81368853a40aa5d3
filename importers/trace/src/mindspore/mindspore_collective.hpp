// MindSpore's communication ops (AllReduce, AllGather, ReduceScatter,
// Broadcast: op types that the Chrome importer's collective_op_of names) as
// collective rows, one lane per stream. MindSpore records no sizes, so bytes
// stay 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "chrome/chrome_collectives.hpp"
#include "parity/profiler/trace_schema.hpp"
#include "trace_assembly.hpp"

namespace parity::importers::trace {

void add_mindspore_collective(TraceAssembly& assembly, profiler::CollectiveOp op,
                              std::int64_t stream, std::int64_t start_ns, std::int64_t dur_ns,
                              std::int64_t rank);

}  // namespace parity::importers::trace
