#include "parity/analyzer/compare/stats_diff.hpp"

#include <cmath>

#include "parity/analyzer/report_format.hpp"
#include "parity/core/error.hpp"

namespace parity::analyzer {
namespace {

std::string text(const std::optional<double>& value) {
  return value ? format_precise(*value) : "none (no finite element)";
}

bool within(const std::optional<double>& x, const std::optional<double>& y,
            const Tolerance& tolerance) {
  if (!x || !y) return !x && !y;
  return *x == *y || std::abs(*x - *y) <= tolerance.atol + tolerance.rtol * std::abs(*y);
}

}  // namespace

importers::TensorStats record_statistics(const importers::TensorDump& dump,
                                         const importers::DumpRecord& record) {
  if (record.stats) return *record.stats;
  if (!record.file)
    throw Error("the record holds neither values nor statistics: " + record.describe(),
                (dump.dir() / std::string(importers::kManifestFile)).string(),
                "the dump is damaged; write it again");
  return importers::compute_stats(dump.read(record));
}

StatsDiff compare_stats(const importers::TensorStats& a, const importers::TensorStats& b,
                        const Tolerance& tolerance) {
  StatsDiff diff{a, b, std::nullopt};
  if (a.nan != b.nan) {
    diff.failure = "nan count " + std::to_string(a.nan) + " vs " + std::to_string(b.nan);
    return diff;
  }
  if (a.inf != b.inf) {
    diff.failure = "inf count " + std::to_string(a.inf) + " vs " + std::to_string(b.inf);
    return diff;
  }
  const std::pair<const char*, std::optional<double> importers::TensorStats::*> fields[] = {
      {"mean", &importers::TensorStats::mean},
      {"std", &importers::TensorStats::std},
      {"min", &importers::TensorStats::min},
      {"max", &importers::TensorStats::max}};
  for (const auto& [name, field] : fields)
    if (!within(a.*field, b.*field, tolerance)) {
      diff.failure = std::string(name) + " " + text(a.*field) + " vs " + text(b.*field) +
                     " outside " + to_string(tolerance);
      return diff;
    }
  if (!within(a.l2, b.l2, tolerance))
    diff.failure = "l2 " + format_precise(a.l2) + " vs " + format_precise(b.l2) + " outside " +
                   to_string(tolerance);
  return diff;
}

}  // namespace parity::analyzer
