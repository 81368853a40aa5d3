// kernel_details.csv of ASCEND_PROFILER_OUTPUT/: a row per device task CANN
// counts as a kernel (compute kernels, and HCCL's collectives with Accelerator
// Core "HCCL"), with the step it ran in ("Step Id"), its op type ("Type") and
// times in us ("Start Time(us)", which CANN ends with a tab). The trace view
// has the same kernels; this adds their steps and types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mindspore/mindspore_csv.hpp"

namespace parity::importers::trace {

struct KernelDetail {
  std::optional<std::int64_t> step;  // absent where the run marked no steps
  std::string type;                  // "MatMulV2"
  std::string core;                  // "AI_CORE", "AI_VECTOR_CORE", "HCCL"...
  std::int64_t start_ns = 0, dur_ns = 0;
};

// Throws parity::Error naming the file, the line and the column for a
// missing column or a cell that is not a number.
std::vector<KernelDetail> parse_kernel_details(const CsvTable& table);

}  // namespace parity::importers::trace
