// Compares the statistics of two tensors (importers' TensorStats: min, max,
// mean, std and L2 norm over the finite elements, NaN and Inf counts), for
// record pairs where one dump holds statistics only. Each statistic is within
// tolerance when |a - b| <= atol + rtol * |b|, as tensor_diff.hpp compares
// elements; the NaN and Inf counts must be equal.
#pragma once

#include <optional>
#include <string>

#include "parity/analyzer/weights/tensor_diff.hpp"
#include "parity/importers/dump/tensor_dump.hpp"
#include "parity/importers/dump/tensor_stats.hpp"

namespace parity::analyzer {

struct StatsDiff {
  importers::TensorStats a, b;
  // The first statistic that disagrees, as "nan count 3 vs 0" or "mean
  // 0.512300014 vs 0.5 outside rtol=1.3e-06 atol=1e-05"; none when all agree.
  std::optional<std::string> failure;
};

// A dump record's statistics: its manifest's, else computed from its values.
// Throws parity::Error naming the manifest when it holds neither.
importers::TensorStats record_statistics(const importers::TensorDump& dump,
                                         const importers::DumpRecord& record);

StatsDiff compare_stats(const importers::TensorStats& a, const importers::TensorStats& b,
                        const Tolerance& tolerance);

}  // namespace parity::analyzer
